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
 * created, leaving the folder as it was. Files of earlier batches are never modified.
 */
final class CheckpointCommit {
  /** How long a rollback waits for the write's remaining tasks to end. */
  static final long TASK_WAIT_MS = 60_000;

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

  /** Lists the state folder before anything is written. */
  static CheckpointCommit begin(WritePlan plan) {
    try {
      Path root = new Path(plan.checkpoint());
      FileSystem fs = root.getFileSystem(plan.hadoopConf());
      Set<String> listing = new HashSet<>();
      list(fs, new Path(root, "state"), listing);
      return new CheckpointCommit(plan, fs, listing);
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "list the state folder", e);
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
      Set<String> after = new HashSet<>();
      list(fs, new Path(root, "state"), after);
      List<String> created = new ArrayList<>(after);
      created.removeAll(before);
      created.sort(null);
      for (String path : created) {
        Path p = new Path(path);
        if (fs.exists(p)) fs.delete(p, true);
      }
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "remove the state files of a failed write", e);
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
    try (InputStream in = fs.open(file)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  /** Writes a new log file atomically; fails when it already exists (a concurrent writer). */
  private void write(Path file, byte[] bytes) throws IOException {
    if (fs.exists(file)) throw Errors.concurrentWrite(plan.checkpoint(), file.toString());
    CheckpointFileManager manager = CheckpointFileManager.create(file.getParent(),
        plan.hadoopConf());
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
