package dev.sparksavepoint.adapters;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreIterator;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import scala.Option;
import scala.collection.Iterator;
import scala.runtime.BoxedUnit;

/**
 * Opening a store to write and scanning list families: Spark 3.5 to 4.1, whose providers
 * cannot load "no state" at a version and whose stores list a list family's keys, not each
 * value.
 */
public final class Stores {
  private Stores() {}

  /**
   * The store of {@code provider} at {@code version} (v2 checkpoint id {@code uniqueId}, or
   * null) to write version+1; {@code fromNoState}: start from no state, in a folder of its own
   * (a full image's staging folder). Their providers load no "no state" at a version, so
   * an empty version is made first: the empty store of version 0 committed as version 1, its
   * {@code 1.zip} named {@code <version>.zip}, then loaded.
   *
   * @throws UnsupportedOperationException SAVEPOINT_SPARK_VERSION for {@code fromNoState} in
   *     a checkpoint of format v2 (its files carry unique ids)
   */
  public static StateStore writable(
      StateStoreProvider provider,
      long version,
      String uniqueId,
      boolean fromNoState,
      Configuration hadoopConf) {
    if (fromNoState && version > 0) {
      provider.getStore(0, Option.empty()).commit();
      Path folder = provider.stateStoreId().storeCheckpointLocation();
      try {
        FileSystem fs = folder.getFileSystem(hadoopConf);
        Path empty = new Path(folder, "1.zip");
        if (!fs.exists(empty)) {
          throw new UnsupportedOperationException(
              "[SAVEPOINT_SPARK_VERSION] writing a RocksDB store's whole state (INSERT"
                  + " OVERWRITE, a savepoint, a restore) in a checkpoint of format v2 needs"
                  + " Spark 4.2 or later; this is Spark "
                  + org.apache.spark.package$.MODULE$.SPARK_VERSION()
                  + ": run it with pyspark 4.2 or later (the checkpoint stays as it is).");
        }
        fs.rename(empty, new Path(folder, version + ".zip"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return provider.getStore(version, Option.apply(uniqueId));
  }

  /** Every (key, value) of multi-valued (list) family {@code cf}, each value its own pair. */
  public static StateStoreIterator<UnsafeRowPair> multiValued(ReadStateStore store, String cf) {
    StateStoreIterator<UnsafeRowPair> keys = store.iterator(cf);
    Iterator<UnsafeRowPair> pairs =
        keys.flatMap(
            pair -> {
              UnsafeRow key = pair.key().copy();
              return store.valuesIterator(key, cf).map(value -> new UnsafeRowPair(key, value));
            });
    return new StateStoreIterator<>(
        pairs,
        () -> {
          keys.close();
          return BoxedUnit.UNIT;
        });
  }
}
