package dev.sparksavepoint.store;

import dev.sparksavepoint.adapters.HdfsStoreMapBase;
import dev.sparksavepoint.adapters.SparkState;
import java.lang.reflect.Constructor;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreMap;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import scala.collection.Iterator;

/**
 * A map of our own under Spark's HDFS-backed store that holds only part of a partition's
 * entries ({@link HdfsImageMap}, {@link HdfsPartialMap}, {@link HdfsWalkMap}): Spark's store writes every put and
 * removal to its delta file as always, but the map cannot be listed, scanned or merged, which
 * only a read of the whole partition or a snapshot would ask.
 */
abstract class PartHdfsMap extends HdfsStoreMapBase {
  private static final Constructor<?> STORE = storeConstructor();

  /**
   * Spark's store of {@code provider} (HDFS-backed) writing version+1 over {@code map}; null
   * when this Spark's store cannot be built so.
   */
  static StateStore storeOver(StateStoreProvider provider, long version, PartHdfsMap map) {
    Object spark = SparkState.provider(provider);
    if (STORE == null || !(spark instanceof HDFSBackedStateStoreProvider)) return null;
    Object[] args = new Object[STORE.getParameterCount()];
    args[0] = spark;
    args[1] = version;
    args[2] = map;
    for (int i = 3; i < args.length; i++) args[i] = false; // shouldForceSnapshot
    try {
      return (StateStore) STORE.newInstance(args);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** {@code HDFSBackedStateStore(provider, version, map[, shouldForceSnapshot])}, or null. */
  private static Constructor<?> storeConstructor() {
    for (Constructor<?> c :
        HDFSBackedStateStoreProvider.HDFSBackedStateStore.class.getDeclaredConstructors()) {
      Class<?>[] types = c.getParameterTypes();
      boolean fits =
          types.length >= 3
              && types[0] == HDFSBackedStateStoreProvider.class
              && types[1] == long.class
              && types[2] == HDFSBackedStateStoreMap.class;
      for (int i = 3; fits && i < types.length; i++) fits = types[i] == boolean.class;
      if (fits) {
        c.setAccessible(true);
        return c;
      }
    }
    return null;
  }

  @Override
  public final void putAll(HDFSBackedStateStoreMap other) {
    throw unsupported("putAll");
  }

  @Override
  public final Iterator<UnsafeRowPair> iterator() {
    throw unsupported("iterator");
  }

  @Override
  public final Iterator<UnsafeRowPair> prefixScan(UnsafeRow prefixKey) {
    throw unsupported("prefixScan");
  }
}
