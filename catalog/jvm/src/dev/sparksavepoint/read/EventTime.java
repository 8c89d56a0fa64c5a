package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.OperatorKind;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The event time a state table's rows age by, as a SQL expression over the table's columns: the
 * column Spark's watermark evicts the rows by. An aggregation or dropDuplicates keyed by a
 * watermarked column loses a row once the watermark reaches it ({@code ts <= watermark}; a
 * window by its end), a dropDuplicatesWithinWatermark row once the watermark reaches its {@code
 * expiresAtMicros}; a join side's rows carry the event time its join condition bounds. Null for
 * state that no watermark evicts (no watermarked column: it only grows; groupsWithState and
 * transformWithState, which expire by timeouts, timers and TTL).
 *
 * <pre>{@code
 * EventTime.of(op, flat)   // "`window`.`end`", "`ts`", "timestamp_micros(`expiresAtMicros`)"
 * }</pre>
 */
public final class EventTime {
  private EventTime() {}

  /** The field dropDuplicatesWithinWatermark keeps per key: when the key may be seen again. */
  static final String EXPIRES_AT = "expiresAtMicros";

  /** The expression for operator {@code op}'s table whose flat columns are {@code flat}. */
  public static String of(Operator op, FlatSchema flat) {
    if (!agesByWatermark(op.kind())) return null;
    StructType columns = flat.schema();
    if (op.name().equals("dedupeWithinWatermark") && columns.getFieldIndex(EXPIRES_AT).isDefined())
      return "timestamp_micros(" + quoted(EXPIRES_AT) + ")";
    StructField column = flat.watermarkColumn();
    if (column == null) return null;
    return column.dataType() instanceof StructType
        ? quoted(column.name()) + ".`end`"
        : quoted(column.name());
  }

  /** Whether Spark evicts state of this kind when the watermark passes its event time. */
  public static boolean agesByWatermark(OperatorKind kind) {
    return kind == OperatorKind.AGG
        || kind == OperatorKind.DEDUP
        || kind == OperatorKind.JOIN
        || kind == OperatorKind.SESSION;
  }

  private static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }
}
