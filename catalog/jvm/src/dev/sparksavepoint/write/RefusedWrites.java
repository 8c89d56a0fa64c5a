package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * Carries a refusal found inside a write task (a NULL key, a key given twice: {@link
 * Errors#rejected}) to the driver as a commit message instead of a failed task. Spark reports a
 * failed task as "Job aborted due to stage failure" with the cause hundreds of characters into a
 * long trace; a driver-side exception thrown from {@code BatchWrite.commit} reaches the user
 * as it is (Spark 4.3's V2 write path then calls {@code abort} and rethrows it unwrapped).
 *
 * <p>A refused writer aborts its store (nothing of its partition is committed), ignores the rest
 * of its rows and reports {@link Refused}; {@link #check} throws the first refusal, by
 * partition, on the driver.
 */
final class RefusedWrites {
  private RefusedWrites() {}

  /** The commit message of a refused partition. */
  record Refused(int partition, String errorClass, String detail) implements WriterCommitMessage {}

  /** Wraps a write's writer factory so that refusals become {@link Refused} messages. */
  static DataWriterFactory wrap(DataWriterFactory writers, WritePlan plan) {
    return new Factory(writers, plan);
  }

  /** The refusal of a write whose store partition {@code partition} cannot be loaded. */
  static Errors.Refusal unloadable(WritePlan plan, int partition, Exception e) {
    return Errors.unloadableState(
        plan.checkpoint(),
        plan.uid(),
        plan.edited().operatorId(),
        plan.state(),
        plan.batchId(),
        CheckpointLog.stateVersion(plan.batchId()),
        partition,
        e);
  }

  /** Throws the refusal of the lowest refused partition, if any (driver side). */
  static void check(WriterCommitMessage[] messages) {
    Refused first = null;
    for (WriterCommitMessage m : messages) {
      if (m instanceof Refused r && (first == null || r.partition() < first.partition())) {
        first = r;
      }
    }
    if (first != null) throw Errors.analysis(first.errorClass(), first.detail());
    // (A SparkThrowable thrown by a task also reaches the driver as itself in Spark 4.3, but a
    // commit message does not depend on that, and lets the driver roll back before reporting.)
  }

  private static final class Factory implements DataWriterFactory {
    private final DataWriterFactory writers;
    private final WritePlan plan;

    Factory(DataWriterFactory writers, WritePlan plan) {
      this.writers = writers;
      this.plan = plan;
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
      try {
        return new Writer(writers.createWriter(partitionId, taskId), partitionId, null);
      } catch (Errors.Refusal refusal) {
        return new Writer(null, partitionId, refusal);
      } catch (Exception e) { // the store of this partition cannot be loaded
        return new Writer(null, partitionId, unloadable(plan, partitionId, e));
      }
    }
  }

  private static final class Writer implements DataWriter<InternalRow> {
    private final DataWriter<InternalRow> writer;
    private final int partition;
    private Errors.Refusal refusal;
    private boolean aborted;

    Writer(DataWriter<InternalRow> writer, int partition, Errors.Refusal refusal) {
      this.writer = writer;
      this.partition = partition;
      this.refusal = refusal;
    }

    @Override
    public void write(InternalRow row) throws IOException {
      if (refusal != null) return;
      try {
        writer.write(row);
      } catch (Errors.Refusal r) {
        refusal = r;
      }
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
      if (refusal == null) {
        try {
          return writer.commit();
        } catch (Errors.Refusal r) {
          refusal = r;
        }
      }
      abort();
      return new Refused(partition, refusal.errorClass(), refusal.detail());
    }

    @Override
    public void abort() throws IOException {
      if (aborted || writer == null) return;
      aborted = true;
      writer.abort();
    }

    @Override
    public void close() throws IOException {
      if (writer != null) writer.close();
    }
  }
}
