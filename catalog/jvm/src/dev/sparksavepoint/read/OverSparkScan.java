package dev.sparksavepoint.read;

import org.apache.spark.SparkContext;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * A scan over one of Spark's {@code statestore} scans: its partitions are the source's (one per
 * state partition), its tasks read the source's rows through {@link #readers} and return the
 * rows of {@code flat}'s read schema.
 */
abstract class OverSparkScan implements Scan, Batch {
  private final Scan source;
  protected final FlatSchema flat;
  private Batch batch;

  OverSparkScan(Scan source, FlatSchema flat) {
    this.source = source;
    this.flat = flat;
  }

  /** The readers of the tasks, over those of the source ({@code source}). */
  abstract PartitionReaderFactory readers(PartitionReaderFactory source);

  @Override
  public StructType readSchema() {
    return flat.readSchema();
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return sourceBatch().planInputPartitions();
  }

  /** The source's readers; tasks share them through one broadcast ({@link SharedReaderFactory}). */
  @Override
  public PartitionReaderFactory createReaderFactory() {
    SparkContext sc = SparkContext.getOrCreate();
    return readers(new SharedReaderFactory(sc, sourceBatch().createReaderFactory()));
  }

  private Batch sourceBatch() {
    if (batch == null) batch = source.toBatch();
    return batch;
  }
}
