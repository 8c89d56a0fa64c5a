package dev.sparksavepoint.store;

import dev.sparksavepoint.adapters.HdfsStoreMapBase;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreMap;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import scala.collection.Iterator;

/**
 * A map of our own under Spark's HDFS-backed store that holds only part of a partition's
 * entries ({@link HdfsImageMap}, {@link HdfsPartialMap}): Spark's store writes every put and
 * removal to its delta file as always, but the map cannot be listed, scanned or merged, which
 * only a read of the whole partition or a snapshot would ask.
 */
abstract class PartHdfsMap extends HdfsStoreMapBase {
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
