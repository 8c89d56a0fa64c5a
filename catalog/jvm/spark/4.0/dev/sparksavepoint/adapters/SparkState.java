package dev.sparksavepoint.adapters;

import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;

/**
 * Spark's own provider and store objects, for code that inspects their classes and fields:
 * Spark 4.0 and later, where the shared code holds them directly.
 */
public final class SparkState {
  private SparkState() {}

  /** Spark's provider. */
  public static Object provider(StateStoreProvider provider) {
    return provider;
  }

  /** Spark's store. */
  public static Object store(ReadStateStore store) {
    return store;
  }
}
