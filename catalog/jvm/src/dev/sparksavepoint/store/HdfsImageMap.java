package dev.sparksavepoint.store;

import dev.sparksavepoint.adapters.SparkState;
import java.lang.reflect.Field;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreMap;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.StateStore;

/**
 * The map of an HDFS-backed store that writes a full image: it keeps nothing but the number of
 * entries put. Spark's HDFS-backed store puts every entry into its map (a
 * {@code ConcurrentHashMap} of row copies, grown one resize at a time) and streams it into the
 * version's delta file; for a full image the map is never read (the image is committed as
 * version 1 on top of no state and its delta becomes the snapshot, {@code StoreFiles.asSnapshot}),
 * yet filling it was 40% of an INSERT OVERWRITE's time and held the whole partition on the heap.
 * {@link #install} puts this map in place of the store's empty one (reflection into
 * {@code HDFSBackedStateStore.mapToUpdate}); the store still writes every entry through Spark's
 * own delta writer. Such a store cannot look keys up: {@link #get} finds nothing.
 */
public final class HdfsImageMap extends PartHdfsMap {
  private static final Field MAP = mapField();

  private int size;

  /**
   * Makes {@code store} (an HDFS-backed store of a full image, nothing put yet) keep no entries;
   * false when it is another store or this Spark's store has no such map (it then keeps its own).
   */
  public static boolean install(StateStore store) {
    Object spark = SparkState.store(store);
    if (MAP == null || !MAP.getDeclaringClass().isInstance(spark)) return false;
    try {
      HDFSBackedStateStoreMap current = (HDFSBackedStateStoreMap) MAP.get(spark);
      if (current.size() != 0) return false;
      MAP.set(spark, new HdfsImageMap());
      return true;
    } catch (IllegalAccessException | RuntimeException e) {
      return false;
    }
  }

  private static Field mapField() {
    try {
      Field field =
          HDFSBackedStateStoreProvider.HDFSBackedStateStore.class.getDeclaredField("mapToUpdate");
      if (field.getType() != HDFSBackedStateStoreMap.class) return null;
      field.setAccessible(true);
      return field;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public UnsafeRow get(UnsafeRow key) {
    return null;
  }

  @Override
  protected void added(UnsafeRow key, UnsafeRow value) {
    size++;
  }

  @Override
  protected UnsafeRow removed(UnsafeRow key) {
    throw unsupported("remove");
  }

  @Override
  protected UnsupportedOperationException unsupported(String what) {
    return new UnsupportedOperationException(
        what + " on the store of a full image, which keeps no entries");
  }
}
