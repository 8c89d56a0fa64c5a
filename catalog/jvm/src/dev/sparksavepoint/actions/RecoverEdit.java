package dev.sparksavepoint.actions;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.commit.FolderClaim;
import dev.sparksavepoint.commit.Leftovers;
import dev.sparksavepoint.commit.StagedImages;
import dev.sparksavepoint.commit.StagingFolders;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.store.EmptyBatch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * {@code spark-savepoint recover}: completes the batch an interrupted edit left planned but
 * uncommitted, without the edit, as the restarted query would ({@link EmptyBatch}); or moves
 * the images of an INSERT OVERWRITE killed after its commit into place
 * ({@code commit.StagedImages}); or removes what a killed savepoint, restore or upgrade wrote
 * into a new folder ({@link FolderClaim}).
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
    String unfinished = removeUnfinished(spark, path, force);
    if (unfinished != null) return "savepoint: recovered '" + path + "': " + unfinished;
    Checkpoint ckpt = Checkpoint.open(path, spark.sessionState().newHadoopConf());
    List<String> staged;
    try {
      staged = StagingFolders.removeAbandoned(ckpt.fileSystem(), ckpt.root());
    } catch (IOException e) {
      throw Errors.writeFailed(path, "complete or remove abandoned staging folders", e);
    }
    List<String> done = new ArrayList<>(staged);
    if (staged.stream().noneMatch(line -> line.startsWith(StagedImages.COMPLETED))) {
      ckpt = Checkpoint.open(path, spark.sessionState().newHadoopConf());
      long last = ckpt.lastCommitted();
      String completed = EmptyBatch.completeInterruptedEdit(spark, ckpt, force);
      if (completed != null) {
        done.add(completed);
      } else if (ckpt.lastPlanned() > last) {
        throw Errors.uncommittedBatch(
            ckpt.location(), CheckpointLog.nextBatch(last), ckpt.committedRange());
      }
    }
    try {
      String removed = Leftovers.remove(ckpt.fileSystem(), ckpt.root());
      if (removed != null) done.add(removed);
    } catch (IOException e) {
      throw Errors.writeFailed(path, "remove what killed edits left", e);
    }
    if (done.isEmpty()) {
      return "savepoint: nothing to recover in '"
          + path
          + "': its last batch "
          + ckpt.lastCommitted()
          + " is committed";
    }
    return "savepoint: recovered '" + path + "': " + String.join("; ", done);
  }

  /** What a killed savepoint, restore or upgrade into {@code path} left, removed; or null. */
  private static String removeUnfinished(SparkSession spark, String path, boolean force) {
    Path root = new Path(path);
    try {
      FileSystem fs = root.getFileSystem(spark.sessionState().newHadoopConf());
      return FolderClaim.removeAbandoned(fs, root, path, force);
    } catch (IOException e) {
      throw Errors.writeFailed(path, "remove an unfinished savepoint or restore", e);
    }
  }
}
