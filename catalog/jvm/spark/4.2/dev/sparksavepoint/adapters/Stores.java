package dev.sparksavepoint.adapters;

import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreIterator;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import scala.Option;

/** Opening a store to write and scanning list families: Spark 4.2 and later. */
public final class Stores {
  private Stores() {}

  /**
   * The store of {@code provider} at {@code version} (v2 checkpoint id {@code uniqueId}, or
   * null) to write version+1; {@code fromNoState}: start from no state (RocksDB; {@code
   * hadoopConf} is for older Sparks, which make the empty version themselves).
   */
  public static StateStore writable(
      StateStoreProvider provider,
      long version,
      String uniqueId,
      boolean fromNoState,
      Configuration hadoopConf) {
    return provider.getStore(version, Option.apply(uniqueId), false, fromNoState);
  }

  /** Every (key, value) of multi-valued (list) family {@code cf}, each value its own pair. */
  public static StateStoreIterator<UnsafeRowPair> multiValued(ReadStateStore store, String cf) {
    return store.iteratorWithMultiValues(cf);
  }
}
