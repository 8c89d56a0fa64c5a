package dev.sparksavepoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkExecutorInfo;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager;

/**
 * The driver side of a write's transaction on the checkpoint folder (Hadoop FileSystem API
 * only). {@link #begin} records which state files exist; once every store partition has
 * version N+2, {@link #finish} writes offsets/N+1 (a copy of offsets/N: same source offsets, so
 * no input is lost or read twice) and then, last, commits/N+1 (a copy of commits/N, with the new
 * state checkpoint ids for format v2). {@link #rollback} removes every state file the write
 * created, leaving the folder as it was. Files of committed batches are never modified; files of
 * uncommitted versions (a killed write's) are removed by {@link #begin}.
 */
final class CheckpointCommit {
  /**
   * A store file of one version, as HDFS-backed and RocksDB stores name them ({@code 5.delta},
   * {@code 5.snapshot}, {@code 5.zip}, {@code 5.changelog}, {@code 5_<checkpointId>.zip}), and
   * their temporary files ({@code .5.delta.<uuid>.TID7.tmp}). Group 1 is the version.
   */
  private static final Pattern VERSION_FILE =
      Pattern.compile("\\.*(\\d+)(_[^.]*)?\\.(delta|snapshot|zip|changelog)(\\..*)?");
  /** Folders under state/ that hold no versioned store files. */
  private static final Set<String> NOT_STORE_FOLDERS = Set.of("_metadata", "_stateSchema", "SSTs");

  /** How long a rollback waits for the write's remaining tasks to end. */
  static final long TASK_WAIT_MS = 60_000;
  /** Clean-up passes of a rollback at most, and the pause after each. */
  static final int CLEANUP_PASSES = 20;
  static final long CLEANUP_PAUSE_MS = 150;

  private final WritePlan plan;
  private final FileSystem fs;
  private final Path root;
  private final Set<String> before;
  private boolean offsetsWritten;

  private CheckpointCommit(WritePlan plan, FileSystem fs, Set<String> before) {
    this.plan = plan;
    this.fs = fs;
    this.root = new Path(plan.checkpoint());
    this.before = before;
  }

  /**
   * Removes the leftovers of an earlier write that was killed before commits/N+1, then lists
   * the state folder before anything is written.
   */
  static CheckpointCommit begin(WritePlan plan) {
    try {
      Path root = new Path(plan.checkpoint());
      FileSystem fs = root.getFileSystem(plan.hadoopConf());
      removeUncommittedVersions(unchecksummed(fs), new Path(root, "state"), plan.batchId() + 1);
      Set<String> listing = new HashSet<>();
      list(unchecksummed(fs), new Path(root, "state"), listing);
      return new CheckpointCommit(plan, fs, listing);
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "list the state folder", e);
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

  /**
   * Deletes store files of versions after {@code lastVersion} (N+1, the state of the last
   * committed batch N): no commit refers to them, and the write is about to commit its own
   * version N+2. Only a write killed before writing offsets/N+1 leaves them (a query stopped
   * mid-batch leaves offsets/N+1, and then no write starts). A leftover changelog or delta would
   * be overwritten anyway, but a leftover snapshot ({@code N+2.zip}, {@code N+2.snapshot}) would
   * outrank the new version.
   */
  private static void removeUncommittedVersions(FileSystem fs, Path dir, long lastVersion)
      throws IOException {
    if (!fs.exists(dir)) return;
    for (FileStatus status : fs.listStatus(dir)) {
      String name = status.getPath().getName();
      if (status.isDirectory()) {
        if (!NOT_STORE_FOLDERS.contains(name)) {
          removeUncommittedVersions(fs, status.getPath(), lastVersion);
        }
        continue;
      }
      Matcher m = VERSION_FILE.matcher(name);
      if (m.matches() && Long.parseLong(m.group(1)) > lastVersion) {
        fs.delete(status.getPath(), false);
      }
    }
  }

  private static void list(FileSystem fs, Path dir, Set<String> out) throws IOException {
    if (!fs.exists(dir)) return;
    for (FileStatus status : fs.listStatus(dir)) {
      out.add(status.getPath().toString());
      if (status.isDirectory()) list(fs, status.getPath(), out);
    }
  }

  /** Writes offsets/N+1 then commits/N+1: the edit becomes batch N+1. */
  void finish(List<PartitionCommit> commits) {
    long n = plan.batchId();
    String next = Long.toString(n + 1);
    try {
      byte[] offsets = read(new Path(new Path(root, "offsets"), Long.toString(n)));
      write(new Path(new Path(root, "offsets"), next), offsets);
      offsetsWritten = true;
      byte[] commit = read(new Path(new Path(root, "commits"), Long.toString(n)));
      if (plan.hasUniqueIds()) commit = withUniqueIds(commit, commits);
      write(new Path(new Path(root, "commits"), next), commit);
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "write offsets/" + next + " and commits/"
          + next, e);
    }
  }

  /**
   * Removes what the write created: new state files and folders, and offsets/N+1. First waits
   * (at most {@link #TASK_WAIT_MS}) for running tasks to end: when one task fails, Spark aborts
   * the job while the other tasks may still be committing their partition.
   */
  void rollback() {
    awaitRunningTasks();
    try {
      if (offsetsWritten) {
        fs.delete(new Path(new Path(root, "offsets"), Long.toString(plan.batchId() + 1)), false);
      }
      // A task that was still finishing (renaming a file, then its checksum) can add a file
      // after a pass: repeat until two passes in a row find nothing new.
      int quiet = 0;
      for (int pass = 0; pass < CLEANUP_PASSES && quiet < 2; pass++) {
        quiet = removeCreated() ? 0 : quiet + 1;
        sleep(CLEANUP_PAUSE_MS);
      }
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "remove the state files of a failed write", e);
    }
  }

  /** Deletes what is under state/ now but was not before the write; true when it found any. */
  private boolean removeCreated() throws IOException {
    FileSystem files = unchecksummed(fs);
    Set<String> after = new HashSet<>();
    list(files, new Path(root, "state"), after);
    List<String> created = new ArrayList<>(after);
    created.removeAll(before);
    created.sort(null);
    for (String path : created) {
      Path p = new Path(path);
      if (files.exists(p)) files.delete(p, true);
    }
    return !created.isEmpty();
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

  /** Writes a new log file atomically; fails when it already exists (a concurrent writer). */
  private void write(Path file, byte[] bytes) throws IOException {
    if (fs.exists(file)) throw Errors.concurrentWrite(plan.checkpoint(), file.toString());
    writeAtomically(file, bytes, plan.hadoopConf());
  }

  /** Writes a file through Spark's checkpoint file manager: visible complete or not at all. */
  static void writeAtomically(Path file, byte[] bytes, Configuration conf) throws IOException {
    CheckpointFileManager manager = CheckpointFileManager.create(file.getParent(), conf);
    if (!manager.exists(file.getParent())) manager.mkdirs(file.getParent());
    CheckpointFileManager.CancellableFSDataOutputStream out = manager.createAtomic(file, false);
    try {
      out.write(bytes);
      out.close();
    } catch (IOException | RuntimeException e) {
      out.cancel();
      throw e;
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
