package dev.sparksavepoint.adapters;

import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreMap;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowWrapper;
import scala.collection.Iterator;

/**
 * The methods of an HDFS-backed store's map whose types depend on the Spark version, for a map
 * that only counts what is put: Spark 4.2 and later (values are {@code UnsafeRowWrapper}s, and
 * the map lists its entries).
 */
public abstract class HdfsStoreMapBase implements HDFSBackedStateStoreMap {
  /** One entry was put. */
  protected abstract void added();

  /** The refusal of an operation the map cannot do. */
  protected abstract UnsupportedOperationException unsupported(String what);

  @Override
  public final UnsafeRowWrapper put(UnsafeRow key, UnsafeRowWrapper value) {
    added();
    return null;
  }

  @Override
  public final UnsafeRowWrapper remove(UnsafeRow key) {
    throw unsupported("remove");
  }

  @Override
  public final Iterator<Map.Entry<UnsafeRow, UnsafeRowWrapper>> entryIterator() {
    throw unsupported("entryIterator");
  }
}
