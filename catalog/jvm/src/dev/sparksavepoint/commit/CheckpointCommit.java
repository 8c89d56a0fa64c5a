package dev.sparksavepoint.commit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.StoreFiles;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.errors.Errors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkExecutorInfo;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;

/**
 * The driver side of a write's transaction on the checkpoint folder (Hadoop FileSystem API
 * only), N being the last committed batch and b = N+1:
 *
 * <ol>
 *   <li>{@link #begin}: claim batch b ({@link EditClaim}: a claim file of this writer's own,
 *       then offsets/b, fail-if-exists). From here on no other writer, and no running query,
 *       writes state version N+2 of this checkpoint. Snapshots of versions after N+1 (no commit
 *       refers to them; they would outrank the new version) are removed;
 *   <li>the write's tasks commit state version N+2 of every store partition, through Spark's
 *       own state store providers (files named by Spark, written as temporary files and renamed);
 *   <li>{@link #finish}: commits/b (a copy of commits/N, with the new state checkpoint ids for
 *       format v2), fail-if-exists, written last: the edit becomes visible at once or not at all.
 * </ol>
 *
 * {@link #rollback} undoes a write that did not commit: it removes the version N+2 files that
 * appeared in the write's store partitions while this writer held the claim (so created by
 * it), then releases the claim. Files of committed batches are never modified or removed. A
 * write killed at any point leaves either commits/b (the whole edit) or no commits/b (none of
 * it): the restarted query re-runs batch b without input, overwriting every version N+2 file,
 * and the next write recovers the batch the same way ({@link InterruptedEdit}).
 */
public final class CheckpointCommit {
  /** How long a rollback waits for the write's remaining tasks to end. */
  static final long TASK_WAIT_MS = 60_000;

  /** Clean-up passes of a rollback at most, and the pause after each. */
  static final int CLEANUP_PASSES = 20;

  static final long CLEANUP_PAUSE_MS = 150;

  private final BatchPlan plan;
  private final FileSystem fs;
  private final EditClaim claim;

  /** What the edit does, as its claim says ("upsert into savepoint state agg_0.default ..."). */
  private final String what;

  /** Version N+2 files in the write's store partitions before the write (normally none). */
  private final Set<String> before;

  /** Set when commits/N+1 turned out to exist: a query re-ran and committed the batch. */
  private boolean committedByOther;

  /**
   * Files the edit wrote besides state and claim, which a rollback removes: offsets/N+2
   * ({@link #planNext}), the sink log's entry, a file source's log entry ({@link #wrote}).
   */
  private final List<Path> created = new ArrayList<>();

  /** The watermark commits/N+1 sets for the next batch, when not commits/N's. */
  private Long nextWatermarkMs;

  private boolean wholeImages;

  /** Set once commits/N+1 is written: from then on nothing of the edit may be removed. */
  private boolean committed;

  private CheckpointCommit(
      BatchPlan plan, FileSystem fs, EditClaim claim, String what, Set<String> before) {
    this.plan = plan;
    this.fs = fs;
    this.claim = claim;
    this.what = what;
    this.before = before;
  }

  /**
   * Claims batch N+1 and plans it (offsets/N+1), removes snapshots of uncommitted versions and
   * lists the version N+2 files already present. {@code planned}: offsets/N+1 exists already
   * (an interrupted edit's, taken over by {@link InterruptedEdit}).
   */
  public static CheckpointCommit begin(BatchPlan plan, String what, boolean planned) {
    return begin(plan, what, planned, false);
  }

  /** {@link #begin}; {@code overrideRivals}: ignore other claims (recover --force). */
  public static CheckpointCommit begin(
      BatchPlan plan, String what, boolean planned, boolean overrideRivals) {
    return begin(plan, what, planned, overrideRivals, null);
  }

  /**
   * {@link #begin} for an edit of the source positions: offsets/N+1 is {@code offsetsEntry}
   * instead of a copy of offsets/N.
   */
  public static CheckpointCommit begin(BatchPlan plan, String what, byte[] offsetsEntry) {
    return begin(plan, what, false, false, offsetsEntry);
  }

  private static CheckpointCommit begin(
      BatchPlan plan, String what, boolean planned, boolean overrideRivals, byte[] offsetsEntry) {
    EditClaim claim = EditClaim.take(plan, what, overrideRivals);
    if (!planned) claim.planBatch(plan.hadoopConf(), offsetsEntry);
    try {
      FileSystem fs = new Path(plan.checkpoint()).getFileSystem(plan.hadoopConf());
      String removed = Leftovers.remove(fs, new Path(plan.checkpoint()));
      if (removed != null) plan.notice(removed);
      FileSystem raw = unchecksummed(fs);
      long version = newVersion(plan);
      Set<String> before = new HashSet<>();
      for (Path dir : storeFolders(plan)) {
        for (FileStatus file : listFiles(raw, dir)) {
          String name = file.getPath().getName();
          if (StoreFiles.versionOf(name) < version) continue;
          if (StoreFiles.isSnapshot(name)) {
            raw.delete(file.getPath(), false);
          } else if (StoreFiles.versionOf(name) == version) {
            before.add(file.getPath().toString());
          }
        }
      }
      return new CheckpointCommit(plan, fs, claim, what, before);
    } catch (IOException | RuntimeException e) {
      claim.release();
      throw e instanceof IOException io
          ? Errors.writeFailed(plan.checkpoint(), "list the state folder", io)
          : (RuntimeException) e;
    }
  }

  /** The state version the edit commits: N+2 for batch N+1. */
  private static long newVersion(BatchPlan plan) {
    return CheckpointLog.stateVersion(CheckpointLog.nextBatch(plan.batchId()));
  }

  /**
   * The file system underneath a checksummed one (the local file system): its listings show
   * the {@code .crc} files that a checksummed listing hides, so a clean-up sees and removes a
   * checksum whose data file is already gone.
   */
  private static FileSystem unchecksummed(FileSystem fs) {
    return fs instanceof ChecksumFileSystem checksummed ? checksummed.getRawFileSystem() : fs;
  }

  /** The folder of every store partition the write commits. */
  private static List<Path> storeFolders(BatchPlan plan) {
    List<Path> folders = new ArrayList<>();
    for (StoreSpec spec : plan.stores()) {
      for (int p = 0; p < spec.numPartitions(); p++) {
        folders.add(
            new Path(
                new StateStoreId(plan.stateLocation(), spec.operatorId(), p, spec.storeName())
                    .storeCheckpointLocation()
                    .toString()));
      }
    }
    return folders;
  }

  private static List<FileStatus> listFiles(FileSystem fs, Path dir) throws IOException {
    List<FileStatus> files = new ArrayList<>();
    try {
      for (FileStatus status : fs.listStatus(dir)) {
        if (status.isFile()) files.add(status);
      }
    } catch (FileNotFoundException e) {
      // a partition folder the write has not created (yet)
    }
    return files;
  }

  /**
   * Plans batch N+2 as well, before commits/N+1: offsets/N+2 is {@code entry}, fail-if-exists.
   * Called once the state of version N+2 is complete: a query started before the edit commits
   * batch N+2 then re-runs it from that state, between the positions of offsets/N+1 and N+2.
   */
  public void planNext(byte[] entry) {
    long batch = CheckpointLog.nextBatch(CheckpointLog.nextBatch(plan.batchId()));
    CheckpointLog log = new CheckpointLog(fs, new Path(plan.checkpoint()), CheckpointLog.OFFSETS);
    try {
      log.create(batch, entry, plan.hadoopConf());
      created.add(log.file(batch));
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "write offsets/" + batch, e);
    }
  }

  /**
   * Marks the edit as one that writes whole new images of its stores (INSERT OVERWRITE): its
   * record counts the entries written, not those removed.
   */
  public void replacesWhole() {
    wholeImages = true;
  }

  /** Records {@code file}, written by the edit beside state and logs: a rollback removes it. */
  public void wrote(Path file) {
    created.add(file);
  }

  /**
   * Makes commits/N+1 set the watermark of the next batch to {@code ms} (its
   * {@code nextBatchWatermarkMs}; a restarted query starts from the larger of it and the
   * {@code batchWatermarkMs} of offsets/N+1) instead of keeping commits/N's.
   */
  public void setNextWatermark(long ms) {
    nextWatermarkMs = ms;
  }

  /**
   * Writes commits/N+1, last: the edit becomes batch N+1. Before it, batch N+1's empty entry in
   * the query's file sink log, when a catalog names the sink ({@link SinkLogBatch}).
   */
  public void finish(List<PartitionCommit> commits) {
    long n = plan.batchId();
    long next = CheckpointLog.nextBatch(n);
    CrashPoint.reach("state-committed");
    CheckpointLog log = new CheckpointLog(fs, new Path(plan.checkpoint()), CheckpointLog.COMMITS);
    try {
      Path sinkEntry = SinkLogBatch.add(plan.checkpoint(), next, plan.hadoopConf());
      if (sinkEntry != null) created.add(sinkEntry);
      byte[] commit = log.bytes(n);
      if (plan.hasUniqueIds()) {
        commit = CheckpointLog.withStateUniqueIds(commit, stateUniqueIds(plan, commits));
      }
      if (nextWatermarkMs != null) {
        commit =
            CheckpointLog.withMetadataField(
                commit, "nextBatchWatermarkMs", LongNode.valueOf(nextWatermarkMs));
      }
      commit = EditToken.stamp(commit, claim.id());
      commit = EditToken.withRows(commit, commits, wholeImages);
      log.create(next, commit, plan.hadoopConf(), () -> CrashPoint.reach("commit-temp"));
      committed = true;
    } catch (FileAlreadyExistsException e) {
      committedByOther = true;
      // Only a query started during the edit re-runs batch N+1 and commits it: its state files
      // are now committed; none of them may be removed.
      throw Errors.concurrentWrite(
          plan.checkpoint(),
          next,
          "a streaming query started on the"
              + " checkpoint during the edit re-ran and committed batch "
              + next
              + "; the edit is"
              + " not applied. Stop the query before editing");
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "write commits/" + next, e);
    }
    CrashPoint.reach("committed");
  }

  /** What the edit does, as its claim says. */
  public String what() {
    return what;
  }

  /** The edit's id, which commits/N+1 carries ({@link EditToken}). */
  public String editId() {
    return claim.id();
  }

  /** True once commits/N+1 is written. */
  public boolean committed() {
    return committed;
  }

  /**
   * Undoes a write that did not commit (does nothing once commits/N+1 is written): first waits (at
   * most {@link #TASK_WAIT_MS}) for running tasks to end (when one task fails, Spark aborts the job
   * while others may still be committing their partition), then removes the version N+2 files that
   * appeared in the write's store partitions, then releases the claim (offsets/N+1 and the claim
   * file). When a query committed batch N+1 meanwhile, only the claim file goes: the state files
   * are the query's now.
   */
  public void rollback() {
    if (committed) return; // a failure after the commit: the edit is whole, or completes
    if (committedByOther) {
      claim.withdraw();
      return;
    }
    awaitRunningTasks();
    try {
      // A task that was still finishing (renaming a file, then its checksum) can add a file
      // after a pass: repeat until two passes in a row find nothing new.
      int quiet = 0;
      for (int pass = 0; pass < CLEANUP_PASSES && quiet < 2; pass++) {
        quiet = removeCreated() ? 0 : quiet + 1;
        if (quiet < 2) sleep(CLEANUP_PAUSE_MS);
      }
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "remove the state files of a failed write", e);
    }
    CrashPoint.reach("rolled-back-state");
    for (Path file : created) {
      try {
        file.getFileSystem(plan.hadoopConf()).delete(file, false);
      } catch (IOException e) {
        throw Errors.writeFailed(plan.checkpoint(), "remove " + file, e);
      }
    }
    claim.release();
  }

  /** Deletes the version N+2 files created since {@link #begin}; true when it found any. */
  private boolean removeCreated() throws IOException {
    FileSystem raw = unchecksummed(fs);
    long version = newVersion(plan);
    boolean found = false;
    for (Path dir : storeFolders(plan)) {
      for (FileStatus file : listFiles(raw, dir)) {
        String path = file.getPath().toString();
        if (StoreFiles.versionOf(file.getPath().getName()) == version && !before.contains(path)) {
          raw.delete(file.getPath(), false);
          found = true;
        }
      }
    }
    return found;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits (at most {@link #TASK_WAIT_MS}) until no task of this application runs. */
  public static void awaitRunningTasks() {
    SparkContext sc = SparkContext.getOrCreate();
    long deadline = System.currentTimeMillis() + TASK_WAIT_MS;
    while (System.currentTimeMillis() < deadline && runningTasks(sc) > 0) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static int runningTasks(SparkContext sc) {
    int running = 0;
    for (SparkExecutorInfo executor : sc.statusTracker().getExecutorInfos()) {
      running += executor.numRunningTasks();
    }
    return running;
  }

  /** The stateUniqueIds of the new versions: operator id -> [partition][store index]. */
  public static ObjectNode stateUniqueIds(BatchPlan plan, List<PartitionCommit> commits) {
    ObjectNode ids = JsonNodeFactory.instance.objectNode();
    for (StoreSpec spec : plan.stores()) {
      String op = Long.toString(spec.operatorId());
      ArrayNode partitions = ids.has(op) ? (ArrayNode) ids.get(op) : ids.putArray(op);
      for (int p = 0; p < spec.numPartitions(); p++) {
        while (partitions.size() <= p) partitions.addArray();
        ArrayNode stores = (ArrayNode) partitions.get(p);
        while (stores.size() <= spec.storeIndex()) stores.addNull();
        stores.set(spec.storeIndex(), JsonNodeFactory.instance.textNode(idOf(commits, spec, p)));
      }
    }
    return ids;
  }

  private static String idOf(List<PartitionCommit> commits, StoreSpec spec, int partition) {
    for (PartitionCommit c : commits) {
      if (c.covers(spec, partition)) return c.checkpointId();
    }
    throw new IllegalStateException(
        "[SAVEPOINT_INTERNAL] no commit for " + spec.describe() + " partition " + partition);
  }
}
