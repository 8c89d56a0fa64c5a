package dev.sparksavepoint.store;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.commit.CheckpointCommit;
import dev.sparksavepoint.commit.InterruptedEdit;
import org.apache.spark.sql.classic.SparkSession;

/**
 * A batch that changes no state: every store partition's version N+1 committed again as N+2,
 * through Spark's providers, then commits/N+1. It completes the batch an interrupted edit
 * planned ({@link InterruptedEdit}), as the restarted query would.
 */
public final class EmptyBatch {
  private EmptyBatch() {}

  /**
   * Completes the interrupted edit's batch of {@code ckpt} when there is one that may be
   * completed, and says so in one line; null when the last batch is not an interrupted edit's.
   *
   * @param force complete it even when a claimer is not provably gone
   * @throws org.apache.spark.sql.AnalysisException as {@link InterruptedEdit#completable}
   */
  public static String completeInterruptedEdit(SparkSession spark, Checkpoint ckpt, boolean force) {
    String edit = InterruptedEdit.completable(ckpt, force);
    if (edit == null) return null;
    long last = ckpt.lastCommitted();
    long batch = CheckpointLog.nextBatch(last);
    StoreBatch plan = StoreBatch.carryOver(spark, ckpt, last);
    CheckpointCommit tx =
        CheckpointCommit.begin(plan, "complete interrupted batch " + batch, true, force);
    try {
      tx.finish(
          CarryOver.commitAll(
              plan, "savepoint: complete interrupted batch " + batch + " of " + ckpt.location()));
    } catch (RuntimeException e) {
      tx.rollback();
      throw e;
    }
    return "completed batch "
        + batch
        + " without its changes (the state is that of batch "
        + last
        + "): it was planned by an edit that was interrupted before it committed ("
        + edit
        + ")";
  }
}
