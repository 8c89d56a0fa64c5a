package dev.sparksavepoint.store;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
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
    return storeOver(provider, version, new HdfsPartialMap(keys, found));
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
