package dev.sparksavepoint;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * An edit killed after it planned batch b = N+1 (offsets/b, a byte copy of offsets/N, and a
 * claim file for b) and before commits/b. The checkpoint is consistent (reads see batch N; version N+2 files are
 * uncommitted), and the restarted query re-runs batch b without input, overwriting them. A
 * write does the same first, when every writer that claimed b is provably gone ({@link
 * WriterProcess#isGone}): it completes b as an empty batch (every store partition's version
 * N+1 committed again as N+2, through Spark's providers, then commits/b). Otherwise the write
 * is refused with SAVEPOINT_INTERRUPTED_EDIT; {@code spark-savepoint recover --force} completes
 * b when the user knows the writer has stopped.
 */
public final class InterruptedEdit {
  private InterruptedEdit() {}

  /**
   * Completes an interrupted edit's batch when it can; returns false when the last batch is not
   * planned-but-uncommitted or was not planned by an edit (a query's batch: restart the query).
   *
   * @param force complete it even when a claimer is not provably gone
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CONCURRENT_WRITE when a writer on
   *     this host that claimed the batch still runs (even with force), SAVEPOINT_INTERRUPTED_EDIT
   *     when one on another host may still run
   */
  static boolean complete(SparkSession spark, Checkpoint ckpt, boolean force) {
    long last = ckpt.lastCommitted();
    long batch = last + 1;
    if (ckpt.lastPlanned() != batch || !plannedByEdit(ckpt, last)) return false;
    List<EditClaim.Claim> claims;
    try {
      claims = EditClaim.claims(ckpt.fileSystem(), ckpt.root(), batch);
    } catch (IOException e) {
      throw Errors.io(ckpt.location(), e);
    }
    if (claims.isEmpty()) return false; // no edit of ours planned it
    EditClaim.Claim running = claims.stream().filter(c -> c.writer().isRunningHere())
        .findFirst().orElse(null);
    if (running != null) {
      throw Errors.concurrentWrite(ckpt.location(), batch, "another edit is writing it ("
          + running.describe() + ")");
    }
    if (!force && !claims.stream().allMatch(c -> c.writer().isGone())) {
      throw Errors.interruptedEdit(ckpt.location(), batch,
          String.join("; ", claims.stream().map(EditClaim.Claim::describe).toList()));
    }
    WritePlan plan = WritePlan.carryOver(spark, ckpt, last);
    CheckpointCommit tx = CheckpointCommit.begin(plan, "complete interrupted batch " + batch,
        true, force);
    try {
      tx.finish(UntouchedPartitions.commitAll(plan,
          "savepoint: complete interrupted batch " + batch + " of " + ckpt.location()));
    } catch (RuntimeException e) {
      tx.rollback();
      throw e;
    }
    return true;
  }

  /**
   * Completes the interrupted edit of the checkpoint at {@code path}, if there is one (Python:
   * {@code sql_ext.recover}); returns what it did, one line.
   */
  public static String recover(SparkSession spark, String path, boolean force) {
    Checkpoint ckpt = Checkpoint.open(path, spark.sessionState().newHadoopConf());
    long batch = ckpt.lastCommitted() + 1;
    if (complete(spark, ckpt, force)) {
      return "savepoint: completed interrupted batch " + batch + " of '" + path + "' without"
          + " the edit (the state is that of batch " + (batch - 1) + ")";
    }
    if (ckpt.lastPlanned() >= batch) {
      throw Errors.uncommittedBatch(ckpt.location(), batch, ckpt.committedRange());
    }
    return "savepoint: nothing to recover in '" + path + "': its last batch "
        + ckpt.lastCommitted() + " is committed";
  }

  /** offsets/{last+1} is a byte copy of offsets/{last}: an edit's batch (a query's differs). */
  private static boolean plannedByEdit(Checkpoint ckpt, long last) {
    Path offsets = new Path(ckpt.root(), "offsets");
    try {
      return Arrays.equals(
          CheckpointCommit.readAll(ckpt.fileSystem(), new Path(offsets, Long.toString(last))),
          CheckpointCommit.readAll(ckpt.fileSystem(), new Path(offsets, Long.toString(last + 1))));
    } catch (IOException e) {
      return false;
    }
  }
}
