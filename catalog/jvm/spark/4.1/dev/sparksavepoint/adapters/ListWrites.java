package dev.sparksavepoint.adapters;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.StateStore;

/** Writes of a list (multi-valued) family: Spark 4.1 and later, a list per call. */
public final class ListWrites {
  private ListWrites() {}

  /** Appends {@code values} (at least one) to the list under {@code key}. */
  public static void append(StateStore store, UnsafeRow key, List<UnsafeRow> values, String cf) {
    if (values.size() == 1) store.merge(key, values.get(0), cf);
    else store.mergeList(key, values.toArray(new UnsafeRow[0]), cf);
  }

  /** Replaces the list under {@code key} with {@code values} (at least one). */
  public static void replace(StateStore store, UnsafeRow key, List<UnsafeRow> values, String cf) {
    store.putList(key, values.toArray(new UnsafeRow[0]), cf);
  }
}
