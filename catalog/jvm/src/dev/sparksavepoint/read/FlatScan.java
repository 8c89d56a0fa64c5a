package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.errors.Errors;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;

/**
 * A scan of Spark's state reader whose rows are flattened ({@link FlatSchema}) in the tasks, with
 * an overlay's changes over them where one is given. Where the state is HDFS-backed
 * ({@link StoreTarget#forScan}) a task streams its partition's files instead
 * ({@link HdfsFiles#entries}): the same rows, without Spark's provider loading the partition
 * into a map (and a copy); it falls back to Spark's reader wherever that cannot be done.
 */
public final class FlatScan extends OverSparkScan {
  private final String name;
  private final ReadFailure failure;
  private final RowOverlay overlay;

  /** The HDFS-backed stores whose files the tasks stream, or null. */
  private final StoreTarget streamed;

  public FlatScan(
      Scan source,
      FlatSchema flat,
      String name,
      ReadFailure failure,
      RowOverlay overlay,
      StoreTarget streamed) {
    super(source, flat);
    this.name = name;
    this.failure = failure;
    this.overlay = overlay;
    this.streamed = streamed;
  }

  @Override
  public String description() {
    return "savepoint state " + name + (overlay == null ? "" : " (with staged changes)");
  }

  @Override
  PartitionReaderFactory readers(PartitionReaderFactory source) {
    return new FlatReaderFactory(source, flat, failure, overlay, streamed);
  }

  /** What a read task reports when Spark's provider cannot load the state files it reads. */
  public record ReadFailure(
      String checkpoint, String uid, long operatorId, String state, long batchId)
      implements java.io.Serializable {
    RuntimeException of(Throwable cause) {
      // A SparkThrowable thrown in a task reaches the driver as itself (Spark 4.3), not as a
      // "Job aborted due to stage failure" wrapper.
      return Errors.unloadableState(
              checkpoint,
              uid,
              operatorId,
              state,
              batchId,
              CheckpointLog.stateVersion(batchId),
              org.apache.spark.TaskContext.getPartitionId(),
              cause)
          .raise();
    }
  }

  /** Wraps the source reader factory; serialized to the executors with the flat schema. */
  static final class FlatReaderFactory implements PartitionReaderFactory {
    private final PartitionReaderFactory source;
    private final FlatSchema flat;
    private final ReadFailure failure;
    private final RowOverlay overlay;
    private final StoreTarget streamed;

    FlatReaderFactory(
        PartitionReaderFactory source,
        FlatSchema flat,
        ReadFailure failure,
        RowOverlay overlay,
        StoreTarget streamed) {
      this.source = source;
      this.flat = flat;
      this.failure = failure;
      this.overlay = overlay;
      this.streamed = streamed;
    }

    /** The source's rows of {@code partition}: streamed from its files where possible. */
    private PartitionReader<InternalRow> sourceRows(InputPartition partition) {
      try {
        int p = streamed == null ? -1 : statePartition(partition);
        HdfsFiles.Entries entries = p < 0 ? null : streamed.entries(p);
        return entries != null ? new EntryRows(entries, p) : source.createReader(partition);
      } catch (Exception e) {
        throw failure.of(e);
      }
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      PartitionReader<InternalRow> reader = sourceRows(partition);
      UnsafeProjection projection = flat.projection();
      PartitionReader<InternalRow> rows =
          new PartitionReader<>() {
            @Override
            public boolean next() throws java.io.IOException {
              try {
                return reader.next();
              } catch (Exception e) {
                throw failure.of(e);
              }
            }

            @Override
            public InternalRow get() {
              return projection.apply(reader.get());
            }

            @Override
            public void close() throws java.io.IOException {
              reader.close();
            }
          };
      if (overlay == null) return rows;
      try {
        return overlay.over(rows, partition, flat.readsPartition());
      } catch (RuntimeException e) {
        throw failure.of(e);
      }
    }
  }

  /** The state partition Spark's {@code StateStoreInputPartition} reads, or -1. */
  static int statePartition(InputPartition partition) {
    try {
      return (Integer) partition.getClass().getMethod("partition").invoke(partition);
    } catch (ReflectiveOperationException | ClassCastException e) {
      return -1;
    }
  }

  /**
   * Entries streamed from an HDFS-backed partition's files as rows of Spark's reader:
   * {@code (key, value, partition_id)}.
   */
  private static final class EntryRows implements PartitionReader<InternalRow> {
    private final HdfsFiles.Entries entries;
    private final Object[] row = new Object[3];
    private final GenericInternalRow current = new GenericInternalRow(row);

    EntryRows(HdfsFiles.Entries entries, int partition) {
      this.entries = entries;
      row[2] = partition;
    }

    @Override
    public boolean next() {
      if (!entries.next()) return false;
      row[0] = entries.key();
      row[1] = entries.value();
      return true;
    }

    @Override
    public InternalRow get() {
      return current;
    }

    @Override
    public void close() {
      entries.close();
    }
  }
}
