package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.commit.StagingFolders;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.store.EmptyBatch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.classic.SparkSession;

/**
 * What dead writers left, settled before a write plans (never in a dry run, which changes
 * nothing): staging folders completed or removed ({@link StagingFolders}), and a batch an
 * interrupted edit planned completed without its changes ({@link EmptyBatch}).
 *
 * @param checkpoint the checkpoint as it is afterwards
 * @param notices one line per thing done, for the write's report
 */
record WriteRecovery(Checkpoint checkpoint, List<String> notices) {

  /**
   * Settles what dead writers left in {@code ckpt}.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_UNCOMMITTED_BATCH when the last
   *     batch is planned but not committed and not an interrupted edit's that may be completed
   */
  static WriteRecovery run(SparkSession spark, Checkpoint ckpt, String uid, String state) {
    List<String> notices = new ArrayList<>(completeAbandoned(ckpt));
    if (ckpt.lastPlanned() > ckpt.lastCommitted()) {
      // a transaction's statement completes it too (then the transaction starts from it)
      String completed = EmptyBatch.completeInterruptedEdit(spark, ckpt, false);
      if (completed == null) {
        throw Errors.writeUncommitted(ckpt.location(), uid, state, ckpt.lastPlanned());
      }
      notices.add(completed);
      // the completed batch holds the state of the batch before it, where the table was loaded
      ckpt = ckpt.refreshed();
    }
    return new WriteRecovery(ckpt, List.copyOf(notices));
  }

  /**
   * For a dry run: nothing is settled, and a batch planned but not committed refuses it.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_UNCOMMITTED_BATCH
   */
  static WriteRecovery none(Checkpoint ckpt, String uid, String state) {
    if (ckpt.lastPlanned() > ckpt.lastCommitted()) {
      throw Errors.writeUncommitted(ckpt.location(), uid, state, ckpt.lastPlanned());
    }
    return new WriteRecovery(ckpt, List.of());
  }

  /**
   * Completes what killed writers left in staging folders: a committed full-image overwrite's
   * images are moved into place, anything else is removed ({@link StagingFolders}).
   */
  private static List<String> completeAbandoned(Checkpoint ckpt) {
    try {
      return StagingFolders.removeAbandoned(ckpt.fileSystem(), ckpt.root());
    } catch (IOException e) {
      throw Errors.writeFailed(ckpt.location(), "complete or remove abandoned staging folders", e);
    }
  }
}
