package dev.sparksavepoint.actions;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.commit.FolderClaim;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A new checkpoint folder an action writes (empty savepoint, savepoint, restore), claimed by
 * creating its {@code metadata} file with an atomic fail-if-exists create: of two actions racing
 * for one folder only one writes, and only that one removes what it wrote when it fails
 * ({@link #remove}). Until the action calls {@link #identify} just before its commit, the file
 * holds the action's claim ({@link FolderClaim}), which Spark cannot read: a query started on a
 * folder whose action was killed fails instead of starting from scratch.
 */
record NewFolder(Path root, FileSystem fs, boolean existed, byte[] metadata, Configuration conf) {
  /**
   * Claims {@code target}, which must not exist or be an empty folder, by creating its
   * {@code metadata} file with the action's claim; {@link #identify} writes {@code metadata}
   * there. {@code what} names the action in messages.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_TARGET_NOT_EMPTY when the folder
   *     holds anything or another action claimed it first
   */
  static NewFolder claim(String target, byte[] metadata, Configuration conf, String what) {
    Path root = new Path(target);
    try {
      FileSystem fs = root.getFileSystem(conf);
      boolean existed = fs.exists(root);
      if (existed && (!fs.getFileStatus(root).isDirectory() || fs.listStatus(root).length > 0)) {
        throw interrupted(fs, root)
            ? Errors.targetInterrupted(target, what)
            : Errors.targetInUse(target, what);
      }
      fs.mkdirs(root);
      byte[] claim = FolderClaim.of("the action to " + what);
      CheckpointFiles.writeNew(new Path(root, "metadata"), claim, conf);
      NewFolder folder = new NewFolder(root, fs, existed, metadata, conf);
      fs.mkdirs(new Path(root, Checkpoint.CLAIM_FILE).getParent());
      folder.write(new Path(root, Checkpoint.CLAIM_FILE), claim);
      return folder;
    } catch (FileAlreadyExistsException e) {
      throw Errors.targetInUse(target, what);
    } catch (IOException e) {
      throw Errors.writeFailed(target, what, e);
    }
  }

  /** True when {@code root} holds an action's {@code metadata} and no committed batch. */
  private static boolean interrupted(FileSystem fs, Path root) throws IOException {
    Path commits = new Path(root, "commits");
    return fs.exists(new Path(root, "metadata"))
        && (!fs.exists(commits) || fs.listStatus(commits).length == 0);
  }

  /** Replaces the claim by the real metadata (the query id): call it just before the commit. */
  void identify() throws IOException {
    CheckpointFiles.replace(new Path(root, "metadata"), metadata, conf);
  }

  /**
   * Writes {@code bytes} as the new file {@code file} in this folder: a plain create that fails
   * if the file exists. No temporary file and rename (each rename forks {@code stat} on a local
   * disk without Hadoop's native library): nothing reads the folder before the action's last
   * entry ({@code commits/N}, written with {@link CheckpointFiles#writeNew}) makes it a
   * checkpoint, so a partial file is never read.
   */
  void write(Path file, byte[] bytes) throws IOException {
    try (FSDataOutputStream out = fs.create(file, false)) {
      out.write(bytes);
    }
  }

  /** Removes what a failed action wrote: the folder, or its content when it existed before. */
  void remove() {
    try {
      if (!existed) {
        fs.delete(root, true);
        return;
      }
      for (FileStatus status : fs.listStatus(root)) fs.delete(status.getPath(), true);
    } catch (IOException ignored) {
      // the original error is the one to report
    }
  }
}
