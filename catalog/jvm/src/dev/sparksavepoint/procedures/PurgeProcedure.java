package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.StateHygiene;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.purge([evictable, aggregations, expired, older_than, column,
 * tables, dry_run, at_ms])}: deletes, as one edit batch, the rows the next batch evicts anyway
 * (dropDuplicates; aggregations only with {@code aggregations}), expired TTL values and with
 * {@code older_than} older rows ({@link StateHygiene#purge}). One row per DELETE (with {@code
 * dry_run}, what it would remove), then the outcome's row.
 */
final class PurgeProcedure extends ActionProcedure {
  static final String NOTHING = "nothing to purge: no state table has rows the rules select";

  PurgeProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "purge",
        "Deletes evictable, expired or older rows as one edit batch (or, dry_run, plans it).",
        ReportRows.STATEMENTS,
        in("evictable", DataTypes.BooleanType, "true"),
        in("aggregations", DataTypes.BooleanType, "false"),
        in("expired", DataTypes.BooleanType, "true"),
        in("older_than", DataTypes.StringType, "NULL"),
        in("column", DataTypes.StringType, "NULL"),
        in("tables", DataTypes.StringType, "NULL"),
        in("dry_run", DataTypes.BooleanType, "false"),
        in("at_ms", DataTypes.LongType, "-1"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    StateHygiene.Purge done =
        StateHygiene.purge(
            spark,
            checkpoint(),
            args.getBoolean(0),
            args.getBoolean(1),
            args.getBoolean(2),
            string(args, 3),
            string(args, 4),
            list(string(args, 5)),
            args.getBoolean(6),
            HygieneProcedure.atMs(args, 7));
    Long batch =
        done.outcome() == null || done.outcome().report() == null
            ? null
            : done.outcome().report().committed() ? done.outcome().report().batchId() : null;
    return ReportRows.statements(batch, done.statements(), done.outcome(), NOTHING);
  }
}
