package dev.sparksavepoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.apache.hadoop.fs.permission.FsPermission;
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
final class CheckpointCommit {
  /**
   * A store file of one version, as HDFS-backed and RocksDB stores name them ({@code 5.delta},
   * {@code 5.snapshot}, {@code 5.zip}, {@code 5.changelog}, {@code 5_<checkpointId>.zip}), their
   * checksums ({@code .5.delta.crc}) and temporary files ({@code .5.delta.<uuid>.TID7.tmp}).
   * Group 1 is the version, group 3 the kind.
   */
  private static final Pattern VERSION_FILE =
      Pattern.compile("\\.*(\\d+)(_[^.]*)?\\.(delta|snapshot|zip|changelog)(\\..*)?");

  /** How long a rollback waits for the write's remaining tasks to end. */
  static final long TASK_WAIT_MS = 60_000;
  /** Clean-up passes of a rollback at most, and the pause after each. */
  static final int CLEANUP_PASSES = 20;
  static final long CLEANUP_PAUSE_MS = 150;

  private final WritePlan plan;
  private final FileSystem fs;
  private final Path root;
  private final EditClaim claim;
  /** Version N+2 files in the write's store partitions before the write (normally none). */
  private final Set<String> before;
  /** Set when commits/N+1 turned out to exist: a query re-ran and committed the batch. */
  private boolean committedByOther;

  private CheckpointCommit(WritePlan plan, FileSystem fs, EditClaim claim, Set<String> before) {
    this.plan = plan;
    this.fs = fs;
    this.root = new Path(plan.checkpoint());
    this.claim = claim;
    this.before = before;
  }

  /**
   * Claims batch N+1 and plans it (offsets/N+1), removes snapshots of uncommitted versions and
   * lists the version N+2 files already present. {@code planned}: offsets/N+1 exists already
   * (an interrupted edit's, taken over by {@link InterruptedEdit}).
   */
  static CheckpointCommit begin(WritePlan plan, String what, boolean planned) {
    return begin(plan, what, planned, false);
  }

  /** {@link #begin}; {@code overrideRivals}: ignore other claims (recover --force). */
  static CheckpointCommit begin(WritePlan plan, String what, boolean planned,
      boolean overrideRivals) {
    EditClaim claim = EditClaim.take(plan, what, overrideRivals);
    if (!planned) claim.planBatch(plan.hadoopConf());
    try {
      FileSystem fs = new Path(plan.checkpoint()).getFileSystem(plan.hadoopConf());
      FileSystem raw = unchecksummed(fs);
      long version = plan.batchId() + 2;
      Set<String> before = new HashSet<>();
      for (Path dir : storeFolders(plan)) {
        for (FileStatus file : listFiles(raw, dir)) {
          Matcher m = VERSION_FILE.matcher(file.getPath().getName());
          if (!m.matches() || Long.parseLong(m.group(1)) < version) continue;
          if (m.group(3).equals("zip") || m.group(3).equals("snapshot")) {
            raw.delete(file.getPath(), false);
          } else if (Long.parseLong(m.group(1)) == version) {
            before.add(file.getPath().toString());
          }
        }
      }
      return new CheckpointCommit(plan, fs, claim, before);
    } catch (IOException | RuntimeException e) {
      claim.release();
      throw e instanceof IOException io
          ? Errors.writeFailed(plan.checkpoint(), "list the state folder", io)
          : (RuntimeException) e;
    }
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
  private static List<Path> storeFolders(WritePlan plan) {
    List<Path> folders = new ArrayList<>();
    for (StoreSpec spec : plan.stores()) {
      for (int p = 0; p < spec.numPartitions(); p++) {
        folders.add(new Path(new StateStoreId(plan.stateLocation(), spec.operatorId(), p,
            spec.storeName()).storeCheckpointLocation().toString()));
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

  /** The version a store file (or its checksum or temporary file) belongs to, or -1. */
  private static long versionOf(String name) {
    Matcher m = VERSION_FILE.matcher(name);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  /** Writes commits/N+1, last: the edit becomes batch N+1. */
  void finish(List<PartitionCommit> commits) {
    long n = plan.batchId();
    String next = Long.toString(n + 1);
    CrashPoint.reach("state-committed");
    try {
      byte[] commit = read(new Path(new Path(root, "commits"), Long.toString(n)));
      if (plan.hasUniqueIds()) commit = withUniqueIds(commit, commits);
      writeAtomically(new Path(new Path(root, "commits"), next), commit, plan.hadoopConf());
    } catch (FileAlreadyExistsException e) {
      committedByOther = true;
      // Only a query started during the edit re-runs batch N+1 and commits it: its state files
      // are now committed; none of them may be removed.
      throw Errors.concurrentWrite(plan.checkpoint(), n + 1, "a streaming query started on the"
          + " checkpoint during the edit re-ran and committed batch " + next + "; the edit is"
          + " not applied. Stop the query before editing");
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "write commits/" + next, e);
    }
    CrashPoint.reach("committed");
  }

  /**
   * Undoes a write that did not commit: first waits (at most {@link #TASK_WAIT_MS}) for running
   * tasks to end (when one task fails, Spark aborts the job while others may still be
   * committing their partition), then removes the version N+2 files that appeared in the
   * write's store partitions, then releases the claim (offsets/N+1 and the claim file). When a
   * query committed batch N+1 meanwhile, only the claim file goes: the state files are the
   * query's now.
   */
  void rollback() {
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
    claim.release();
  }

  /** Deletes the version N+2 files created since {@link #begin}; true when it found any. */
  private boolean removeCreated() throws IOException {
    FileSystem raw = unchecksummed(fs);
    long version = plan.batchId() + 2;
    boolean found = false;
    for (Path dir : storeFolders(plan)) {
      for (FileStatus file : listFiles(raw, dir)) {
        String path = file.getPath().toString();
        if (versionOf(file.getPath().getName()) == version && !before.contains(path)) {
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

  private static void awaitRunningTasks() {
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

  private byte[] read(Path file) throws IOException {
    return readAll(fs, file);
  }

  /** The whole content of a (small, log or metadata) file. */
  static byte[] readAll(FileSystem fs, Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  /**
   * Writes a new file so that it is visible complete or not at all, and never replaces one:
   * a temporary file of this writer's own ({@code .<name>.<uuid>.tmp}), then a rename that
   * fails if the target exists (FileContext's {@code Rename.NONE}, the primitive Spark's own
   * metadata logs use). The temporary file is removed whatever happens.
   *
   * @throws FileAlreadyExistsException when {@code file} exists
   */
  static void writeAtomically(Path file, byte[] bytes, Configuration conf) throws IOException {
    Path dir = file.getParent();
    Path temp = new Path(dir, "." + file.getName() + "." + UUID.randomUUID() + ".tmp");
    FileContext fc;
    try {
      fc = FileContext.getFileContext(file.toUri(), conf);
    } catch (UnsupportedFileSystemException e) {
      writeWithFileSystem(file, temp, bytes, conf);
      return;
    }
    if (!fc.util().exists(dir)) fc.mkdir(dir, FsPermission.getDirDefault(), true);
    if (fc.util().exists(file)) throw new FileAlreadyExistsException(file.toString());
    try {
      try (FSDataOutputStream out = fc.create(temp, EnumSet.of(CreateFlag.CREATE))) {
        out.write(bytes);
      }
      fc.rename(temp, file, Options.Rename.NONE);
    } finally {
      if (fc.util().exists(temp)) fc.delete(temp, false);
    }
  }

  /** {@link #writeAtomically} where Hadoop has no FileContext binding for the scheme. */
  private static void writeWithFileSystem(Path file, Path temp, byte[] bytes, Configuration conf)
      throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    if (fs.exists(file)) throw new FileAlreadyExistsException(file.toString());
    try {
      try (FSDataOutputStream out = fs.create(temp, false)) {
        out.write(bytes);
      }
      if (fs.exists(file) || !fs.rename(temp, file)) {
        throw new FileAlreadyExistsException(file.toString());
      }
    } finally {
      if (fs.exists(temp)) fs.delete(temp, false);
    }
  }

  /** commits/N with its stateUniqueIds replaced by the ids of the new versions. */
  private byte[] withUniqueIds(byte[] commit, List<PartitionCommit> commits) throws IOException {
    String text = new String(commit, StandardCharsets.UTF_8);
    int newline = text.indexOf('\n');
    ObjectMapper json = new ObjectMapper();
    ObjectNode metadata = (ObjectNode) json.readTree(text.substring(newline + 1));
    ObjectNode ids = json.createObjectNode();
    for (StoreSpec spec : plan.stores()) {
      String op = Long.toString(spec.operatorId());
      ArrayNode partitions = ids.has(op) ? (ArrayNode) ids.get(op) : ids.putArray(op);
      for (int p = 0; p < spec.numPartitions(); p++) {
        while (partitions.size() <= p) partitions.addArray();
        ArrayNode stores = (ArrayNode) partitions.get(p);
        while (stores.size() <= spec.storeIndex()) stores.addNull();
        stores.set(spec.storeIndex(), json.getNodeFactory().textNode(idOf(commits, spec, p)));
      }
    }
    metadata.set("stateUniqueIds", ids);
    return (text.substring(0, newline + 1) + json.writeValueAsString(metadata))
        .getBytes(StandardCharsets.UTF_8);
  }

  private static String idOf(List<PartitionCommit> commits, StoreSpec spec, int partition) {
    for (PartitionCommit c : commits) {
      if (c.covers(spec, partition)) return c.checkpointId();
    }
    throw new IllegalStateException("[SAVEPOINT_INTERNAL] no commit for " + spec.describe()
        + " partition " + partition);
  }
}
