package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.StateHygiene;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.hygiene([batch_id, older_than, column, at_ms, count])}: per state
 * table and partition, its rows, those the next batch evicts under the watermark, the expired TTL
 * values (as of {@code at_ms}, default now) and with {@code older_than} the rows before that
 * event time ({@link StateHygiene#count}); a Spark job per table (none with {@code count =>
 * false}: one row per table, its event time and whether it is never evicted), nothing written.
 */
final class HygieneProcedure extends ActionProcedure {

  HygieneProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "hygiene",
        "Per state table and partition: rows, evictable, expired and older rows.",
        "table string, state_kind string, event_time string, never_evicted boolean,"
            + " partition_id int, rows bigint, evictable bigint, expired bigint, older bigint,"
            + " purgeable bigint",
        in("batch_id", DataTypes.LongType, "-1"),
        in("older_than", DataTypes.StringType, "NULL"),
        in("column", DataTypes.StringType, "NULL"),
        in("at_ms", DataTypes.LongType, "-1"),
        in("count", DataTypes.BooleanType, "true"));
    changesNoFile();
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    return StateHygiene.count(
        spark,
        checkpoint(),
        args.getLong(0),
        string(args, 1),
        string(args, 2),
        atMs(args, 3),
        args.getBoolean(4));
  }

  /** The time TTL values count as expired at: the argument, or now. */
  static long atMs(InternalRow args, int i) {
    return args.getLong(i) < 0 ? System.currentTimeMillis() : args.getLong(i);
  }
}
