package dev.sparksavepoint.adapters;

import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreMap;
import org.apache.spark.sql.execution.streaming.state.StateStoreRow;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowWrapper;
import scala.collection.Iterator;

/**
 * The methods of an HDFS-backed store's map whose types depend on the Spark version, for a map
 * of our own that decides what it keeps of the entries put and removed: Spark 4.2 and later
 * (values are {@code UnsafeRowWrapper}s, and the map lists its entries).
 */
public abstract class HdfsStoreMapBase implements HDFSBackedStateStoreMap {
  /** {@code key} was put with {@code value} (without its checksum). */
  protected abstract void added(UnsafeRow key, UnsafeRow value);

  /** {@code key} was removed: its value before, or null when it had none. */
  protected abstract UnsafeRow removed(UnsafeRow key);

  /** The refusal of an operation the map cannot do. */
  protected abstract UnsupportedOperationException unsupported(String what);

  @Override
  public final UnsafeRowWrapper put(UnsafeRow key, UnsafeRowWrapper value) {
    added(key, value.unsafeRow());
    return null;
  }

  @Override
  public final UnsafeRowWrapper remove(UnsafeRow key) {
    UnsafeRow before = removed(key);
    return before == null ? null : new StateStoreRow(before);
  }

  @Override
  public final Iterator<Map.Entry<UnsafeRow, UnsafeRowWrapper>> entryIterator() {
    throw unsupported("entryIterator");
  }
}
