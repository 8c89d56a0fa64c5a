package dev.sparksavepoint.adapters;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.StateStore;

/**
 * Writes of a list (multi-valued) family: Spark 3.5 and 4.0, whose stores take one value per call (as
 * its {@code ListState} writes them).
 */
public final class ListWrites {
  private ListWrites() {}

  /** Appends {@code values} (at least one) to the list under {@code key}. */
  public static void append(StateStore store, UnsafeRow key, List<UnsafeRow> values, String cf) {
    for (UnsafeRow value : values) store.merge(key, value, cf);
  }

  /** Replaces the list under {@code key} with {@code values} (at least one). */
  public static void replace(StateStore store, UnsafeRow key, List<UnsafeRow> values, String cf) {
    store.put(key, values.get(0), cf);
    append(store, key, values.subList(1, values.size()), cf);
  }
}
