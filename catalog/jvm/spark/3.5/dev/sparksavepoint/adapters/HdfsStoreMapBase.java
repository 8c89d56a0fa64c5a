package dev.sparksavepoint.adapters;

import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreMap;

/**
 * The methods of an HDFS-backed store's map whose types depend on the Spark version, for a map
 * that only counts what is put: Spark 3.5 to 4.1 (values are {@code UnsafeRow}s).
 */
public abstract class HdfsStoreMapBase implements HDFSBackedStateStoreMap {
  /** One entry was put. */
  protected abstract void added();

  /** The refusal of an operation the map cannot do. */
  protected abstract UnsupportedOperationException unsupported(String what);

  @Override
  public final UnsafeRow put(UnsafeRow key, UnsafeRow value) {
    added();
    return null;
  }

  @Override
  public final UnsafeRow remove(UnsafeRow key) {
    throw unsupported("remove");
  }
}
