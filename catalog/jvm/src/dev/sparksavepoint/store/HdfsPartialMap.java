package dev.sparksavepoint.store;

import dev.sparksavepoint.adapters.SparkState;
import java.lang.reflect.Constructor;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreMap;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;

/**
 * The map of an HDFS-backed store that writes version N+1 of a partition without loading
 * version N: it holds only the entries of the keys an edit named (read from the partition's
 * files for just those keys, {@code read.HdfsFiles}) and what the edit puts since, and
 * refuses to answer for any other key. Spark's provider would put every entry of version N into
 * a map (and copy it) only to append the edit's few puts and removals to version N+1's delta
 * file, which Spark's store still writes itself ({@link #store}); a partition an edit does not
 * touch commits an empty delta, with nothing read. Such a store cannot be iterated.
 */
public final class HdfsPartialMap extends PartHdfsMap {
  private static final Constructor<?> STORE = storeConstructor();

  /** The keys whose entries this map knows (found, absent, put or removed). */
  private final Set<UnsafeRow> known;

  private final Map<UnsafeRow, UnsafeRow> entries;

  private HdfsPartialMap(Collection<UnsafeRow> keys, Map<UnsafeRow, UnsafeRow> found) {
    this.known = new HashSet<>(keys);
    this.entries = new HashMap<>(found);
  }

  /**
   * Spark's store of {@code provider} (HDFS-backed) writing version+1 over a map that knows only
   * {@code keys}, whose entries at {@code version} are {@code found}; null when this Spark's
   * store cannot be built so.
   */
  static StateStore store(
      StateStoreProvider provider,
      long version,
      Collection<UnsafeRow> keys,
      Map<UnsafeRow, UnsafeRow> found) {
    Object spark = SparkState.provider(provider);
    if (STORE == null || !(spark instanceof HDFSBackedStateStoreProvider)) return null;
    Object[] args = new Object[STORE.getParameterCount()];
    args[0] = spark;
    args[1] = version;
    args[2] = new HdfsPartialMap(keys, found);
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

  private UnsafeRow known(UnsafeRow key) {
    if (!known.contains(key)) {
      throw new IllegalStateException(
          "[SAVEPOINT_INTERNAL] a key no edit named was looked up in a partially read"
              + " HDFS-backed store partition");
    }
    return key;
  }

  @Override
  public int size() {
    return entries.size();
  }

  @Override
  public UnsafeRow get(UnsafeRow key) {
    return entries.get(known(key));
  }

  @Override
  protected void added(UnsafeRow key, UnsafeRow value) {
    known.add(key);
    entries.put(key, value);
  }

  @Override
  protected UnsafeRow removed(UnsafeRow key) {
    return entries.remove(known(key));
  }

  @Override
  protected UnsupportedOperationException unsupported(String what) {
    return new UnsupportedOperationException(
        "[SAVEPOINT_INTERNAL] "
            + what
            + " on a partially read HDFS-backed store partition, which knows only the keys"
            + " an edit named");
  }
}
