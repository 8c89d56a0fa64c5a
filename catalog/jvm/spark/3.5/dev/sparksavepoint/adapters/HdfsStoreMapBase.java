package dev.sparksavepoint.adapters;

import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreMap;

/**
 * The methods of an HDFS-backed store's map whose types depend on the Spark version, for a map
 * of our own that decides what it keeps of the entries put and removed: Spark 3.5 to 4.1
 * (values are {@code UnsafeRow}s).
 */
public abstract class HdfsStoreMapBase implements HDFSBackedStateStoreMap {
  /** {@code key} was put with {@code value}. */
  protected abstract void added(UnsafeRow key, UnsafeRow value);

  /** {@code key} was removed: its value before, or null when it had none. */
  protected abstract UnsafeRow removed(UnsafeRow key);

  /** The refusal of an operation the map cannot do. */
  protected abstract UnsupportedOperationException unsupported(String what);

  @Override
  public final UnsafeRow put(UnsafeRow key, UnsafeRow value) {
    added(key, value);
    return null;
  }

  @Override
  public final UnsafeRow remove(UnsafeRow key) {
    return removed(key);
  }
}
