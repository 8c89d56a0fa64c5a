package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.errors.Errors;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;

/**
 * A scan of Spark's state reader whose rows are flattened ({@link FlatSchema}) in the tasks, with
 * an overlay's changes over them where one is given.
 */
public final class FlatScan extends OverSparkScan {
  private final String name;
  private final ReadFailure failure;
  private final RowOverlay overlay;

  public FlatScan(
      Scan source, FlatSchema flat, String name, ReadFailure failure, RowOverlay overlay) {
    super(source, flat);
    this.name = name;
    this.failure = failure;
    this.overlay = overlay;
  }

  @Override
  public String description() {
    return "savepoint state " + name + (overlay == null ? "" : " (with staged changes)");
  }

  @Override
  PartitionReaderFactory readers(PartitionReaderFactory source) {
    return new FlatReaderFactory(source, flat, failure, overlay);
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

    FlatReaderFactory(
        PartitionReaderFactory source, FlatSchema flat, ReadFailure failure, RowOverlay overlay) {
      this.source = source;
      this.flat = flat;
      this.failure = failure;
      this.overlay = overlay;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      PartitionReader<InternalRow> reader;
      try {
        reader = source.createReader(partition);
      } catch (Exception e) {
        throw failure.of(e);
      }
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
}
