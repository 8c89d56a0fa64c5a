package dev.sparksavepoint.actions;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.commit.StagingFolders;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.List;
import dev.sparksavepoint.write.EmptyBatch;
import org.apache.spark.sql.classic.SparkSession;

/**
 * {@code spark-savepoint recover}: completes the batch an interrupted edit left planned but
 * uncommitted, without the edit, as the restarted query would ({@link EmptyBatch}); or moves
 * the images of an INSERT OVERWRITE killed after its commit into place
 * ({@code commit.StagedImages}).
 */
public final class RecoverEdit {
  private RecoverEdit() {}

  /**
   * Completes the interrupted edit of the checkpoint at {@code path}, if there is one; returns
   * what it did, one line.
   *
   * @param force complete it even when its writer is not provably gone
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_INTERRUPTED_EDIT,
   *     SAVEPOINT_CONCURRENT_WRITE, SAVEPOINT_UNCOMMITTED_BATCH (a query's batch)
   */
  public static String run(SparkSession spark, String path, boolean force) {
    Checkpoint ckpt = Checkpoint.open(path, spark.sessionState().newHadoopConf());
    List<String> staged;
    try {
      staged = StagingFolders.removeAbandoned(ckpt.fileSystem(), ckpt.root());
    } catch (IOException e) {
      throw Errors.writeFailed(path, "complete or remove abandoned staging folders", e);
    }
    String moved = staged.stream().filter(line -> line.startsWith("moved")).findFirst()
        .orElse(null);
    if (moved != null) {
      return "savepoint: " + moved + " in '" + path + "': the edit is whole";
    }
    long last = ckpt.lastCommitted();
    long batch = CheckpointLog.nextBatch(last);
    if (EmptyBatch.completeInterruptedEdit(spark, ckpt, force)) {
      return "savepoint: completed interrupted batch " + batch + " of '" + path + "' without"
          + " the edit (the state is that of batch " + last + ")";
    }
    if (ckpt.lastPlanned() >= batch) {
      throw Errors.uncommittedBatch(ckpt.location(), batch, ckpt.committedRange());
    }
    return "savepoint: nothing to recover in '" + path + "': its last batch " + last
        + " is committed";
  }
}
