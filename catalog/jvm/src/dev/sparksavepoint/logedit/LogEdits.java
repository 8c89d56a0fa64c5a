package dev.sparksavepoint.logedit;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.commit.QueryActivity;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.store.CarryOver;
import dev.sparksavepoint.store.StoreBatch;
import java.io.IOException;
import java.util.List;
import org.apache.spark.sql.classic.SparkSession;

/**
 * What the edits of the query's logs share ({@link PositionsEdit}, {@link WatermarkEdit}): a
 * new batch whose offsets entry differs from the last one and whose state is the last state,
 * carried over unchanged.
 */
final class LogEdits {
  private LogEdits() {}

  /**
   * The last committed batch N, once checked that no query runs on {@code ckpt}, that no batch
   * is planned and not committed, and that N is the batch the statement read
   * ({@code readBatch}).
   */
  static long lastBatch(
      SparkSession spark, Checkpoint ckpt, String namespace, String table, long readBatch) {
    QueryActivity.check(spark, ckpt, namespace, table, false);
    long last = ckpt.lastCommitted();
    if (ckpt.lastPlanned() > last) {
      throw Errors.writeUncommitted(ckpt.location(), namespace, table, ckpt.lastPlanned());
    }
    if (readBatch != last) {
      throw Errors.concurrentWrite(
          ckpt.location(),
          CheckpointLog.nextBatch(readBatch),
          "batch "
              + last
              + " was committed after the statement read the table at batch "
              + readBatch);
    }
    return last;
  }

  /** A change of an offsets entry's bytes. */
  interface EntryChange {
    byte[] apply(byte[] entry) throws IOException;
  }

  /**
   * The offsets entry of the next batch: {@code offsets/last} changed by {@code change}.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when the entry does
   *     not parse
   */
  static byte[] nextEntry(Checkpoint ckpt, long last, EntryChange change) {
    try {
      return change.apply(ckpt.offsetLog().bytes(last));
    } catch (IOException e) {
      throw Errors.corruptFile(
          ckpt.location(),
          CheckpointLog.OFFSETS + "/" + last,
          "batch " + last,
          e,
          "Restore the file from a copy of the checkpoint.");
    }
  }

  /** Commits every store partition's state again as the state of {@code batch}. */
  static List<PartitionCommit> carriedOver(StoreBatch plan, long batch) {
    return CarryOver.commitAll(
        plan, "savepoint: carry state over into batch " + batch + " of " + plan.checkpoint());
  }
}
