package dev.sparksavepoint.adapters;

import dev.sparksavepoint.adapters.state.ReadStateStore;
import dev.sparksavepoint.adapters.state.StateStore;
import dev.sparksavepoint.adapters.state.StateStoreIterator;
import dev.sparksavepoint.adapters.state.StateStoreProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import scala.Option;

/**
 * Opening a store to write: Spark 3.5, whose providers (like 4.0's) cannot load "no state" at a
 * version, and whose stores have no list families.
 */
public final class Stores {
  private Stores() {}

  /**
   * The store of {@code provider} at {@code version} to write version+1 ({@code uniqueId}: none
   * on 3.5); {@code fromNoState}: start from no state, in a folder of its own (a full image's
   * staging folder): the empty store of version 0 is committed as version 1, its {@code 1.zip}
   * named {@code <version>.zip}, then loaded (RocksDB).
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
        fs.rename(new Path(folder, "1.zip"), new Path(folder, version + ".zip"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return provider.getStore(version, Option.apply(uniqueId));
  }

  /** Every (key, value) of a list family: 3.5 has none (refused). */
  public static StateStoreIterator<UnsafeRowPair> multiValued(ReadStateStore store, String cf) {
    return store.iterator(cf); // refuses any family but default, and default is not a list
  }
}
