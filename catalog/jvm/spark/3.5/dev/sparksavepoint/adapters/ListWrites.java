package dev.sparksavepoint.adapters;

import dev.sparksavepoint.adapters.state.StateStore;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;

/** Writes of a list (multi-valued) family: Spark 3.5 has none (its stores refuse them). */
public final class ListWrites {
  private ListWrites() {}

  /** Appends {@code values} to the list under {@code key}: refused on 3.5. */
  public static void append(StateStore store, UnsafeRow key, List<UnsafeRow> values, String cf) {
    store.merge(key, values.get(0), cf);
  }

  /** Replaces the list under {@code key} with {@code values}: refused on 3.5. */
  public static void replace(StateStore store, UnsafeRow key, List<UnsafeRow> values, String cf) {
    store.merge(key, values.get(0), cf);
  }
}
