package dev.sparksavepoint.image;

import java.io.Serializable;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * Turns a state value of one schema into a value of another (an upgrade of a query): new
 * column {@code i} takes old column {@code sources[i]}, cast when its type widens, or, when
 * {@code sources[i]} is -1, the value {@code initial[i]} (Spark's internal representation: an
 * aggregation buffer's start value). Old columns no new one takes are dropped.
 *
 * <p>Example: {@code count, sum} to {@code count, sum, max}: sources {@code [0, 1, -1]},
 * initial {@code [_, _, null]}.
 */
public final class ValueTransform implements Serializable {
  private final StructType from;
  private final StructType to;
  private final int[] sources;
  private final Object[] initial;
  private transient UnsafeProjection projection;

  public ValueTransform(StructType from, StructType to, int[] sources, Object[] initial) {
    this.from = from;
    this.to = to;
    this.sources = sources.clone();
    this.initial = initial.clone();
  }

  /** How many columns an old value has. */
  public int oldFields() {
    return from.size();
  }

  /** The new value of {@code old} (a row of the old schema). */
  public UnsafeRow apply(UnsafeRow old) {
    Object[] values = new Object[to.size()];
    for (int i = 0; i < values.length; i++) {
      int source = sources[i];
      if (source < 0) {
        values[i] = initial[i];
        continue;
      }
      DataType was = from.fields()[source].dataType();
      DataType now = to.fields()[i].dataType();
      Object value = old.isNullAt(source) ? null : old.get(source, was);
      values[i] =
          value == null || was.equals(now)
              ? value
              : new Cast(Literal.create(value, was), now, Option.apply("UTC"), null).eval(null);
    }
    if (projection == null) projection = UnsafeProjection.create(to);
    InternalRow row = new GenericInternalRow(values);
    return projection.apply(row).copy();
  }
}
