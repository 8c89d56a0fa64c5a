package dev.sparksavepoint.read;

import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * One of Spark's reader factories as tasks get it: one broadcast, read once per executor, not
 * a copy inside every task. Spark's {@code statestore} source puts the session's Hadoop
 * configuration itself into its reader factory, and Hadoop deserializes a configuration by
 * un-gzipping each of its ~1000 properties' sources ({@code Configuration.readFields}), which
 * every read task paid (5-25 ms) before reading a byte of state.
 *
 * <p>Example: {@code new SharedReaderFactory(sc, scan.toBatch().createReaderFactory())}
 */
final class SharedReaderFactory implements PartitionReaderFactory {
  private final Broadcast<PartitionReaderFactory> source;

  SharedReaderFactory(SparkContext sc, PartitionReaderFactory source) {
    this.source = JavaSparkContext.fromSparkContext(sc).broadcast(source);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    return source.value().createReader(partition);
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return source.value().createColumnarReader(partition);
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return source.value().supportColumnarReads(partition);
  }
}
