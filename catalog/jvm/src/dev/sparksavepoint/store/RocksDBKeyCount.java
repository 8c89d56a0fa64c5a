package dev.sparksavepoint.store;

import dev.sparksavepoint.adapters.SparkState;
import java.lang.reflect.Field;
import org.apache.spark.sql.execution.streaming.state.RocksDB;
import org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;

/**
 * The key count a RocksDB full image records, given instead of counted. Spark's RocksDB store
 * counts keys by looking every put key up first ({@code trackTotalNumberOfRows}); a full image
 * puts each key once into an empty store (the writer refuses a key given twice), so the count
 * is the number of puts and the look-ups are half of the write's time. The image is written
 * with counting off ({@link #CONF}) and the count set where Spark keeps it
 * ({@code RocksDB.numKeysOnWritingVersion}, which the commit writes into the image's metadata).
 * Where that field is missing (another Spark build) counting stays on: {@link #settable}.
 */
public final class RocksDBKeyCount {
  /** Spark's setting that makes every RocksDB put look its key up to count keys. */
  public static final String CONF = "spark.sql.streaming.stateStore.rocksdb.trackTotalNumberOfRows";

  private static final Field WRITING = writingField();

  private RocksDBKeyCount() {}

  /** True when this Spark's RocksDB store lets the count be set. */
  public static boolean settable() {
    return WRITING != null;
  }

  /** Sets the key count of the version {@code provider}'s RocksDB store is writing. */
  public static void set(StateStoreProvider provider, long keys) {
    RocksDB db = ((RocksDBStateStoreProvider) SparkState.provider(provider)).rocksDB();
    try {
      WRITING.setLong(db, keys);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot set the key count of a RocksDB image", e);
    }
  }

  private static Field writingField() {
    try {
      Field field = RocksDB.class.getDeclaredField("numKeysOnWritingVersion");
      if (field.getType() != long.class) return null;
      field.setAccessible(true);
      return field;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
