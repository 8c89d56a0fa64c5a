package dev.sparksavepoint.adapters;

import dev.sparksavepoint.adapters.state.ReadStateStore;
import dev.sparksavepoint.adapters.state.StateStoreProvider;

/**
 * Spark's own provider and store objects, for code that inspects their classes and fields:
 * Spark 3.5, where the shared code holds them wrapped ({@code adapters.state}).
 */
public final class SparkState {
  private SparkState() {}

  /** Spark's provider. */
  public static Object provider(StateStoreProvider provider) {
    return provider.spark();
  }

  /** Spark's store. */
  public static Object store(ReadStateStore store) {
    return store.spark();
  }
}
