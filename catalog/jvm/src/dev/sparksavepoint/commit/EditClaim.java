package dev.sparksavepoint.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.errors.Errors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A writer's exclusive hold on batch b = N+1 of a checkpoint, taken before any state file is
 * written. Every step goes through Hadoop's FileSystem API and needs no atomic rename, so it
 * holds on {@code file:}, {@code hdfs://} and object stores with consistent listings:
 *
 * <ol>
 *   <li>the writer creates {@code _savepoint/edits/<b>.<uuid>.json} (who, where, what): a name
 *       of its own, so no two writers ever touch the same file;
 *   <li>it lists {@code _savepoint/edits/<b>.*}: a claim of another writer that is not provably
 *       gone means a concurrent edit. Each writer lists after its own create, so of two racing
 *       writers at least one sees the other; of writers that see each other, the one whose
 *       claim sorts first waits briefly for the others to remove theirs and refuse, and goes
 *       on when they have: at most one proceeds, and one does;
 *   <li>it creates {@code offsets/<b>} (a copy of offsets/N: same source offsets, so the batch
 *       reads no input) with Spark's own fail-if-exists log primitive. A running query creates
 *       the same file to start batch b: the edit cannot take a batch the query has started, and
 *       the query cannot start b once the edit holds it.
 * </ol>
 *
 * The claim file stays after the commit as the record of the edit. {@link #release} undoes the
 * claim of a write that did not commit, removing only files this claim created.
 */
public final class EditClaim {
  public static final String FOLDER = "_savepoint/edits";
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Set in claims whose commit carries their id ({@link EditToken}): only of those can a
   * commit without it prove that another writer committed the batch.
   */
  static final String MARKS = "marksCommit";

  /** How long the first-named of racing writers waits for the others to withdraw. */
  private static final long TIE_WAIT_MILLIS = 2_000;

  private static final long TIE_POLL_MILLIS = 50;

  private final String location;
  private final FileSystem fs;
  private final Path root;
  private final long batch;
  private final Path own;
  private final List<Path> createdFolders;
  private boolean offsetsCreated;

  private EditClaim(
      String location, FileSystem fs, Path root, long batch, Path own, List<Path> createdFolders) {
    this.location = location;
    this.fs = fs;
    this.root = root;
    this.batch = batch;
    this.own = own;
    this.createdFolders = createdFolders;
  }

  /**
   * Claims batch {@code batch} (steps 1 and 2); {@link #planBatch} is step 3.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CONCURRENT_WRITE when another
   *     writer holds or races for the batch (nothing of this write stays behind)
   */
  static EditClaim take(BatchPlan plan, String what, boolean overrideRivals) {
    String location = plan.checkpoint();
    Path root = new Path(location);
    try {
      FileSystem fs = root.getFileSystem(plan.hadoopConf());
      Path folder = new Path(root, FOLDER);
      List<Path> created = new ArrayList<>();
      for (Path dir : List.of(folder.getParent(), folder)) {
        if (!fs.exists(dir)) created.add(0, dir);
      }
      long batch = CheckpointLog.nextBatch(plan.batchId());
      Path own = new Path(folder, fileName(batch, UUID.randomUUID()));
      CheckpointFiles.writeNew(own, record(batch, what, true), plan.hadoopConf());
      EditClaim claim = new EditClaim(location, fs, root, batch, own, created);
      String rival = overrideRivals ? null : claim.liveRival();
      if (rival != null) {
        claim.release();
        throw Errors.concurrentWrite(location, batch, "another edit claimed it (" + rival + ")");
      }
      CrashPoint.reach("claimed");
      return claim;
    } catch (IOException e) {
      throw Errors.writeFailed(
          location, "claim batch " + CheckpointLog.nextBatch(plan.batchId()), e);
    }
  }

  /**
   * This claim's id, the uuid in its file name: commits/b carries it ({@link EditToken}), so
   * the commit proves that this edit wrote it.
   */
  String id() {
    return idOf(own.getName());
  }

  /** The writer's uuid in a claim file's name ({@code <batch>.<uuid>.json}). */
  static String idOf(String claimFile) {
    return claimFile.substring(claimFile.indexOf('.') + 1, claimFile.length() - ".json".length());
  }

  /** Records batch {@code batch} of a new checkpoint as made by this tool (empty savepoints). */
  public static void recordBatch(
      Path root, long batch, String what, org.apache.hadoop.conf.Configuration conf)
      throws IOException {
    CheckpointFiles.writeNew(
        new Path(new Path(root, FOLDER), fileName(batch, UUID.randomUUID())),
        record(batch, what, false),
        conf);
  }

  /** The name of a claim file: {@code <batch>.<writer's uuid>.json}. */
  public static String fileName(long batch, UUID writer) {
    return batch + "." + writer + ".json";
  }

  /** The batch a claim file claims, or -1 when {@code name} is not a claim file's. */
  public static long batchOf(String name) {
    int dot = name.indexOf('.');
    if (dot <= 0 || !name.endsWith(".json") || !name.substring(0, dot).matches("\\d+")) {
      return -1;
    }
    return Long.parseLong(name.substring(0, dot));
  }

  /** The batches that have a claim file: made, or being made, by edits. */
  static java.util.Set<Long> claimedBatches(FileSystem fs, Path root) throws IOException {
    java.util.Set<Long> batches = new java.util.HashSet<>();
    try {
      for (FileStatus status : fs.listStatus(new Path(root, FOLDER))) {
        long batch = batchOf(status.getPath().getName());
        if (batch >= 0) batches.add(batch);
      }
    } catch (FileNotFoundException e) {
      // no edit yet
    }
    return batches;
  }

  /** The claim file's content: which batch, which process, when, and what it edits. */
  private static byte[] record(long batch, String what, boolean marksCommit) throws IOException {
    ObjectNode json = JSON.createObjectNode();
    json.put("batch", batch)
        .put("edit", what)
        .put("claimedAt", Instant.now().toString())
        .put(MARKS, marksCommit)
        .put("user", user());
    var statements = json.putArray("statements");
    EditStatements.current().forEach(statements::add);
    WriterProcess.current().writeTo(json);
    return JSON.writeValueAsString(json).getBytes(StandardCharsets.UTF_8);
  }

  /** Who edits: Hadoop's current user (the OS user, or the Kerberos or proxy user). */
  private static String user() {
    try {
      return org.apache.hadoop.security.UserGroupInformation.getCurrentUser().getShortUserName();
    } catch (IOException e) {
      return System.getProperty("user.name");
    }
  }

  /**
   * Another live claim on this batch once the tie-break has run, described; or null when this
   * writer may go on. Writers that see each other's claims do not all back off: the one whose
   * claim name sorts first waits (up to {@link #TIE_WAIT_MILLIS}) for the others to withdraw,
   * the others withdraw at once. This writer goes on only after a listing with no live rival,
   * made after its own claim was created, so at most one writer goes on; and of writers that
   * race, one does. The wait ends early when offsets/b appears (a rival, or a query, went on).
   */
  private String liveRival() throws IOException {
    List<Claim> rivals = liveRivals();
    if (rivals.isEmpty()) return null;
    if (rivals.get(0).file().compareTo(own.getName()) < 0) return rivals.get(0).describe();
    Path started = new CheckpointLog(fs, root, CheckpointLog.OFFSETS).file(batch);
    long deadline = System.nanoTime() + TIE_WAIT_MILLIS * 1_000_000L;
    while (System.nanoTime() < deadline && !fs.exists(started)) {
      try {
        Thread.sleep(TIE_POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while claiming batch " + batch);
      }
      rivals = liveRivals();
      if (rivals.isEmpty()) return null;
    }
    return rivals.get(0).describe();
  }

  /** The other claims on this batch whose writers are not provably gone, oldest name first. */
  private List<Claim> liveRivals() throws IOException {
    List<Claim> rivals = new ArrayList<>();
    for (Claim other : claims(fs, root, batch)) {
      if (!other.file().equals(own.getName()) && !other.writer().isGone()) rivals.add(other);
    }
    return rivals;
  }

  /**
   * Step 3: creates offsets/b, failing if it exists: {@code entry}, or a copy of offsets/N when
   * null.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CONCURRENT_WRITE when offsets/b
   *     exists (a running query started batch b); the claim is released first
   */
  void planBatch(org.apache.hadoop.conf.Configuration conf, byte[] entry) {
    CheckpointLog offsets = new CheckpointLog(fs, root, CheckpointLog.OFFSETS);
    try {
      offsets.create(batch, entry != null ? entry : offsets.bytes(batch - 1), conf);
      offsetsCreated = true;
    } catch (FileAlreadyExistsException e) {
      release();
      throw Errors.concurrentWrite(
          location,
          batch,
          "offsets/" + batch + " appeared: a" + " streaming query started batch " + batch);
    } catch (IOException e) {
      release();
      throw Errors.writeFailed(location, "write offsets/" + batch, e);
    }
    CrashPoint.reach("planned");
  }

  /**
   * Undoes an uncommitted claim: offsets/b if this claim created it, then the claim file, then
   * the folders it created if they are empty. Safe to call more than once.
   */
  void release() {
    try {
      if (offsetsCreated) {
        fs.delete(new CheckpointLog(fs, root, CheckpointLog.OFFSETS).file(batch), false);
        offsetsCreated = false;
      }
      fs.delete(own, false);
    } catch (IOException e) {
      throw Errors.writeFailed(location, "release the claim on batch " + batch, e);
    }
    for (Path dir : createdFolders) removeIfEmpty(dir);
  }

  /**
   * Best effort: another writer that created the same folder may remove it, or add a claim to
   * it, between our listing and our delete; either way the folder is no longer ours to remove.
   */
  private void removeIfEmpty(Path dir) {
    try {
      FileStatus[] left = fs.listStatus(dir);
      if (left.length == 0) fs.delete(dir, false);
    } catch (IOException e) {
      // gone (FileNotFoundException) or not empty any more (PathIsNotEmptyDirectoryException)
    }
  }

  /** Removes only the claim file: batch b was committed by someone else, whose it now is. */
  void withdraw() {
    try {
      fs.delete(own, false);
    } catch (IOException e) {
      throw Errors.writeFailed(location, "remove the claim file " + own, e);
    }
  }

  // ---- reading claims ----

  /** One claim file: its name, the batch it claims, its writer and what it edits. */
  record Claim(
      String file,
      long batch,
      WriterProcess writer,
      String edit,
      String claimedAt,
      boolean marksCommit) {
    String describe() {
      return edit + " by " + writer.describe() + ", claimed " + claimedAt;
    }

    /** The claim's id ({@link EditClaim#id}). */
    String id() {
      return idOf(file);
    }
  }

  /** The claims on batch {@code batch} of the checkpoint at {@code root}, oldest name first. */
  static List<Claim> claims(FileSystem fs, Path root, long batch) throws IOException {
    return claims(fs, root, b -> b == batch);
  }

  /** The claims on the batches {@code batches} accepts, oldest name first. */
  static List<Claim> claims(FileSystem fs, Path root, java.util.function.LongPredicate batches)
      throws IOException {
    List<Claim> claims = new ArrayList<>();
    Path folder = new Path(root, FOLDER);
    FileStatus[] files;
    try {
      files = fs.listStatus(folder);
    } catch (FileNotFoundException e) {
      return claims;
    }
    for (FileStatus status : files) {
      String name = status.getPath().getName();
      long batch = batchOf(name);
      if (batch < 0 || !batches.test(batch)) continue;
      JsonNode json;
      try {
        json = JSON.readTree(CheckpointFiles.readAll(fs, status.getPath()));
      } catch (FileNotFoundException e) {
        continue; // released meanwhile
      } catch (IOException e) {
        json = JSON.createObjectNode(); // being written: a live claim of unknown origin
      }
      claims.add(
          new Claim(
              name,
              batch,
              WriterProcess.readFrom(json),
              json.path("edit").asText("an edit"),
              json.path("claimedAt").asText("?"),
              json.path(MARKS).asBoolean(false)));
    }
    claims.sort((a, b) -> a.file().compareTo(b.file()));
    return claims;
  }
}
