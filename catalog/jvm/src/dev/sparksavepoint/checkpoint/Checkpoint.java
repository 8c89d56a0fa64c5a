package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sparksavepoint.adapters.OperatorMetadataFiles;
import dev.sparksavepoint.errors.Errors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadata;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadataV2;
import org.apache.spark.sql.execution.streaming.state.StateStoreMetadata;
import scala.Option;

/**
 * A streaming checkpoint (or savepoint) folder, read through Hadoop's FileSystem API and Spark's
 * own operator metadata readers. Reads only small metadata files: no Spark job is launched. An
 * opened checkpoint is a snapshot of its logs; the operators of each batch are read once.
 *
 * <p>Example: {@code Checkpoint.open("s3a://bucket/ckpt", hadoopConf).operators(lastCommitted)}
 */
public final class Checkpoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String location;
  private final Path root;
  private final FileSystem fs;
  private final Configuration hadoopConf;
  private final CheckpointLog commitLog;
  private final CheckpointLog offsetLog;

  /** commits/ entries: batch id -> commit time (ms). */
  private final TreeMap<Long, Long> commits;

  private final TreeMap<Long, Long> offsets;
  private final Map<Long, List<Operator>> operatorsByBatch = new ConcurrentHashMap<>();
  private volatile Map<Long, String> userUids;

  /** The metadata file read although its Hadoop checksum file does not match it. */
  private volatile boolean staleMetadataChecksum;

  private Checkpoint(String location, Path root, FileSystem fs, Configuration hadoopConf)
      throws IOException {
    this.location = location;
    this.root = root;
    this.fs = fs;
    this.hadoopConf = hadoopConf;
    this.commitLog = new CheckpointLog(fs, root, CheckpointLog.COMMITS);
    this.offsetLog = new CheckpointLog(fs, root, CheckpointLog.OFFSETS);
    this.commits = commitLog.entries();
    this.offsets = offsetLog.entries();
  }

  /** True when {@code location} holds a checkpoint's commit log. */
  public static boolean exists(String location, Configuration hadoopConf) {
    try {
      Path root = new Path(location);
      return root.getFileSystem(hadoopConf).exists(new Path(root, CheckpointLog.COMMITS));
    } catch (IOException e) {
      throw Errors.io(location, e);
    }
  }

  /**
   * The field of a {@code metadata} file that an action of the tool is still writing the
   * folder ({@code commit.FolderClaim}): no checkpoint yet.
   */
  public static final String CLAIM_FIELD = "savepointClaim";

  /**
   * A copy of that claim, which stays when the action replaces the metadata file just before
   * its commit (and after it, as the record of who wrote the folder).
   */
  public static final String CLAIM_FILE = "_savepoint/claim.json";

  /**
   * Marks a scratch checkpoint in which the tool planned a query's first batch without running
   * it (its partitions have schema files, no state): {@code upgrade.PlannedQuery}.
   */
  public static final String PLANNED_FILE = "_savepoint/planned";

  private Boolean planned;

  /** Opens a checkpoint folder, failing with an actionable error when it is not one. */
  public static Checkpoint open(String location, Configuration hadoopConf) {
    try {
      return BrokenConnections.retried(() -> opened(location, hadoopConf));
    } catch (IOException e) {
      throw Errors.io(location, e);
    }
  }

  private static Checkpoint opened(String location, Configuration hadoopConf) throws IOException {
    Path root = new Path(location);
    FileSystem fs = root.getFileSystem(hadoopConf);
    if (!fs.exists(root)) throw Errors.noSuchFolder(location);
    if (fs.getFileStatus(root).isFile()) throw Errors.fileNotFolder(location);
    boolean offsets = fs.exists(new Path(root, CheckpointLog.OFFSETS));
    if (!offsets || !fs.exists(new Path(root, CheckpointLog.COMMITS))) {
      refuseUnfinished(location, fs, root);
      if (offsets) refuseWithoutCommitLog(location, fs, root);
      String found =
          Arrays.stream(fs.listStatus(root))
              .map(s -> s.getPath().getName() + (s.isDirectory() ? "/" : ""))
              .sorted()
              .limit(10)
              .collect(Collectors.joining(", "));
      throw Errors.notACheckpoint(location, found.isEmpty() ? "nothing" : found);
    }
    Checkpoint ckpt = new Checkpoint(location, root, fs, hadoopConf);
    if (ckpt.commits.isEmpty()) refuseUnfinished(location, fs, root);
    return ckpt;
  }

  /**
   * SAVEPOINT_NO_COMMIT_LOG when {@code offsets/} has entries and there is no {@code commits/}:
   * Spark builds both logs when a query is constructed, so only Spark 2.0 and 2.1, which kept no
   * commit log, leave such a folder.
   */
  private static void refuseWithoutCommitLog(String location, FileSystem fs, Path root)
      throws IOException {
    TreeMap<Long, Long> planned = new CheckpointLog(fs, root, CheckpointLog.OFFSETS).entries();
    if (planned.isEmpty()) return;
    long first = planned.firstKey();
    long last = planned.lastKey();
    throw Errors.noCommitLog(
        location, first == last ? Long.toString(last) : first + ".." + last, last);
  }

  /**
   * SAVEPOINT_UNFINISHED_CHECKPOINT when a folder with no committed batch carries an action's
   * claim ({@link #unfinishedClaim}).
   */
  private static void refuseUnfinished(String location, FileSystem fs, Path root) {
    Map<String, com.fasterxml.jackson.databind.JsonNode> claim = unfinishedClaim(fs, root);
    if (claim != null) {
      throw Errors.unfinishedCheckpoint(
          location,
          claim.get(CLAIM_FIELD).asText(),
          claim.getOrDefault("writer", JSON.missingNode()).asText("an unknown process"));
    }
  }

  /**
   * The claim of the action that is (or was) writing the folder {@code root}, when it has no
   * committed batch: its metadata file, or {@link #CLAIM_FILE} once the metadata is the real
   * one; null when there is none or a batch is committed.
   */
  public static Map<String, com.fasterxml.jackson.databind.JsonNode> unfinishedClaim(
      FileSystem fs, Path root) {
    try {
      Path commits = new Path(root, CheckpointLog.COMMITS);
      if (fs.exists(commits)
          && !new CheckpointLog(fs, root, CheckpointLog.COMMITS).entries().isEmpty()) {
        return null;
      }
      for (String file : List.of("metadata", CLAIM_FILE)) {
        Map<String, com.fasterxml.jackson.databind.JsonNode> fields =
            CheckpointFiles.jsonFields(fs, new Path(root, file));
        if (fields.containsKey(CLAIM_FIELD)) return fields;
      }
    } catch (IOException | RuntimeException e) {
      // not JSON, or unreadable: Spark's own checks say what is wrong
    }
    return null;
  }

  /**
   * This checkpoint while its logs list the same entries with the same file times (no batch
   * planned or committed since it was opened), else the checkpoint opened afresh.
   */
  public Checkpoint refreshed() {
    try {
      boolean same =
          BrokenConnections.retried(
              () -> commitLog.entries().equals(commits) && offsetLog.entries().equals(offsets));
      if (same) return this;
    } catch (FileNotFoundException e) {
      // gone meanwhile: open() says what is there now
    } catch (IOException e) {
      throw Errors.io(location, e);
    }
    return open(location, hadoopConf);
  }

  public String location() {
    return location;
  }

  public Path root() {
    return root;
  }

  public FileSystem fileSystem() {
    return fs;
  }

  /** The {@code offsets/} log. */
  public CheckpointLog offsetLog() {
    return offsetLog;
  }

  /** The {@code commits/} log. */
  public CheckpointLog commitLog() {
    return commitLog;
  }

  public List<Long> committedBatches() {
    return new ArrayList<>(commits.keySet());
  }

  public boolean hasCommittedBatch() {
    return !commits.isEmpty();
  }

  /** The last committed batch id; fails when none is committed. */
  public long lastCommitted() {
    if (commits.isEmpty()) throw Errors.noCommittedBatch(location);
    return commits.lastKey();
  }

  /** The batches with an offsets entry (planned, maybe not committed), in order. */
  public List<Long> plannedBatches() {
    return new ArrayList<>(offsets.keySet());
  }

  /** When offsets/{batchId} was written (epoch ms), or -1 when it does not exist. */
  public long planTimeMs(long batchId) {
    Long time = offsets.get(batchId);
    return time == null ? -1 : time;
  }

  /** True when commits/{batchId} exists. */
  public boolean isCommitted(long batchId) {
    return commits.containsKey(batchId);
  }

  /** The last batch with an offsets entry (planned, maybe not committed); -1 when none. */
  public long lastPlanned() {
    return offsets.isEmpty() ? -1 : offsets.lastKey();
  }

  /** Commit time (epoch ms) of a committed batch. */
  public long commitTimeMs(long batchId) {
    Long time = commits.get(batchId);
    if (time == null) throw Errors.noSuchBatch(location, batchId, committedRange());
    return time;
  }

  /** "0..5" style description of the committed batches still in the log. */
  public String committedRange() {
    if (commits.isEmpty()) return "none";
    if (commits.size() == 1) return commits.firstKey().toString();
    long first = commits.firstKey();
    long last = commits.lastKey();
    return (last - first + 1 == commits.size()) ? first + ".." + last : commits.keySet().toString();
  }

  /** Validates a batch id asked for by a user: it must be committed. */
  public long checkBatch(long batchId) {
    if (commits.containsKey(batchId)) return batchId;
    if (offsets.containsKey(batchId)) {
      throw Errors.uncommittedBatch(location, batchId, committedRange());
    }
    throw Errors.noSuchBatch(location, batchId, committedRange());
  }

  /** The last batch committed at or before {@code epochMillis} (TIMESTAMP AS OF). */
  public long batchAsOf(long epochMillis) {
    long found = -1;
    for (Map.Entry<Long, Long> commit : commits.entrySet()) {
      if (commit.getValue() <= epochMillis) found = commit.getKey();
    }
    if (found < 0) {
      String first =
          commits.isEmpty()
              ? "never"
              : java.time.Instant.ofEpochMilli(Collections.min(commits.values())).toString();
      throw Errors.noBatchAtTime(location, epochMillis, first);
    }
    return found;
  }

  /** The SQL confs the query recorded in offsets/{batchId} (provider, partitions, codec, ...). */
  public Map<String, String> recordedConf(long batchId) {
    Map<String, String> conf = new HashMap<>();
    JsonNode metadata = offsetMetadata(batchId);
    if (metadata.has("conf")) {
      metadata
          .get("conf")
          .fields()
          .forEachRemaining(e -> conf.put(e.getKey(), e.getValue().asText()));
    }
    return conf;
  }

  /**
   * The offset-log metadata line of a batch (watermark, batch timestamp, confs).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when it is damaged
   */
  public JsonNode offsetMetadata(long batchId) {
    try {
      return offsetLog.metadata(batchId);
    } catch (IOException | RuntimeException e) {
      throw damagedLogEntry(CheckpointLog.OFFSETS, batchId, e);
    }
  }

  /**
   * Where each source stands after batch {@code batchId} ({@link SourcePositions}).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when offsets/N is
   *     damaged
   */
  public List<SourcePositions.Position> sourcePositions(long batchId) {
    try {
      return SourcePositions.parse(offsetLog.bytes(batchId));
    } catch (IOException | RuntimeException e) {
      throw damagedLogEntry(CheckpointLog.OFFSETS, batchId, e);
    }
  }

  /** The batch timestamp (epoch ms) offsets/{batchId} records; -1 when it records none. */
  public long batchTimestampMs(long batchId) {
    return offsetMetadata(batchId).path("batchTimestampMs").asLong(-1);
  }

  /** Whether this is a scratch checkpoint of a planned, never run batch ({@link #PLANNED_FILE}). */
  public boolean planned() {
    if (planned == null) {
      try {
        planned = fs.exists(new Path(root, PLANNED_FILE));
      } catch (IOException e) {
        planned = false;
      }
    }
    return planned;
  }

  /** The streaming query's id from the checkpoint's metadata file, or null. */
  public java.util.UUID queryId() {
    try {
      String text = new String(metadataFile(), StandardCharsets.UTF_8);
      return java.util.UUID.fromString(
          JSON.readTree(text.lines().findFirst().orElse("")).path("id").asText());
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The stateful operators of the query as of {@code batchId}, ordered by operator id. */
  public List<Operator> operators(long batchId) {
    List<Operator> known = operatorsByBatch.get(batchId);
    if (known != null) return known;
    List<Operator> operators = new ArrayList<>();
    Path stateDir = new Path(root, "state");
    try {
      if (fs.exists(stateDir)) {
        for (long id : operatorIds(stateDir)) operators.add(readOperator(id, batchId));
      }
    } catch (IOException e) {
      throw Errors.io(location, e);
    }
    List<Operator> read = List.copyOf(operators);
    operatorsByBatch.put(batchId, read);
    return read;
  }

  private List<Long> operatorIds(Path stateDir) throws IOException {
    List<Long> ids = new ArrayList<>();
    for (FileStatus status : fs.listStatus(stateDir)) {
      String name = status.getPath().getName();
      if (status.isDirectory() && name.matches("\\d+")) ids.add(Long.parseLong(name));
    }
    Collections.sort(ids);
    return ids;
  }

  /** Finds an operator by uid, user uid or plain operator id. */
  public Operator operator(String name, long batchId) {
    List<Operator> operators = operators(batchId);
    for (Operator op : operators) {
      if (answersTo(op, name)) return op;
    }
    throw Errors.noSuchOperator(location, name, describe(operators));
  }

  /** True when {@code name} is {@code op}'s uid, its user uid or its plain operator id. */
  public boolean answersTo(Operator op, String name) {
    return op.answersTo(name) || name.equalsIgnoreCase(userUids().get(op.id()));
  }

  /**
   * The uids users gave operators ({@link OperatorUids}), operator id to uid; empty when none.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when unreadable
   */
  public Map<Long, String> userUids() {
    Map<Long, String> known = userUids;
    if (known != null) return known;
    try {
      known = Map.copyOf(OperatorUids.read(fs, root));
    } catch (IOException | RuntimeException e) {
      throw Errors.corruptFile(
          location,
          OperatorUids.FILE,
          "the checkpoint",
          e,
          "Remove the file (operators keep their generated uids) or restore it from a copy.");
    }
    userUids = known;
    return known;
  }

  /** The operators of the last committed batch, as "agg_0 (stateStoreSave)" items. */
  public List<String> operatorNames() {
    if (!hasCommittedBatch()) return List.of("none (no committed batch)");
    return List.of(describe(operators(lastCommitted())));
  }

  private static String describe(List<Operator> operators) {
    return operators.isEmpty()
        ? "none (the query has no stateful operator)"
        : operators.stream()
            .map(o -> o.uid() + " (" + o.name() + ")")
            .collect(Collectors.joining(", "));
  }

  /**
   * Checks that the log entries of {@code batchId} ({@code offsets/N}, {@code commits/N}) parse,
   * so that a damaged file is reported by name, not as a parser trace from deep inside Spark.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE
   */
  public void checkLogs(long batchId) {
    checkLogEntry(commitLog, CheckpointLog.COMMITS, batchId);
    checkLogEntry(offsetLog, CheckpointLog.OFFSETS, batchId);
  }

  /**
   * Checks that the {@code metadata} file (the query id) parses: what an edit, a copy or a
   * restart needs, a read does not.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE
   */
  public void checkMetadata() {
    String damage = metadataDamage();
    if (damage != null) throw Errors.corruptMetadata(location, damage);
  }

  /** Why the {@code metadata} file cannot be read, or null (also when there is none). */
  private String metadataDamage() {
    try {
      if (!fs.exists(new Path(root, "metadata"))) return null;
      String text = new String(metadataFile(), StandardCharsets.UTF_8);
      if (text.isEmpty()) return "the file is empty";
      JSON.readTree(text.lines().findFirst().orElse(""));
      return null;
    } catch (IOException | RuntimeException e) {
      return Errors.firstLine(e);
    }
  }

  /** The {@code metadata} file, read as Spark reads it ({@link CheckpointFiles#readAsSpark}). */
  private byte[] metadataFile() throws IOException {
    return CheckpointFiles.readAsSpark(
        fs, new Path(root, "metadata"), () -> staleMetadataChecksum = true);
  }

  /**
   * What a reader of batch {@code batchId} should know that refuses nothing, one line each: the
   * files read for it although their Hadoop checksum files no longer match them ({@code
   * offsets/N}, {@code commits/N}, {@code metadata}: changed by hand after Spark wrote them), and
   * joins in a state format whose outer joins Spark refuses to restart.
   */
  public List<String> warnings(long batchId) {
    List<String> lines = new ArrayList<>();
    for (CheckpointLog log : List.of(offsetLog, commitLog)) {
      try {
        if (log.hasStaleChecksum(batchId)) {
          lines.add(CheckpointLog.staleChecksumLine(log.entryName(batchId)));
        }
      } catch (IOException e) {
        // missing or unreadable: checkLogs reports it
      }
    }
    String damage = metadataDamage();
    if (damage != null) {
      lines.add(
          "metadata (the query id) is damaged ("
              + damage
              + "): reads work, edits are refused until `spark-savepoint repair` writes it back");
    }
    if (staleMetadataChecksum) lines.add(CheckpointLog.staleChecksumLine("metadata"));
    lines.addAll(StateReadability.warnings(this, batchId));
    return lines;
  }

  private void checkLogEntry(CheckpointLog log, String name, long batchId) {
    try {
      log.metadata(batchId);
    } catch (IOException | RuntimeException e) {
      throw damagedLogEntry(name, batchId, e);
    }
  }

  private RuntimeException damagedLogEntry(String log, long batchId, Exception cause) {
    String restore = "the file from a copy of the checkpoint.";
    String remedy =
        commits.headMap(batchId).isEmpty()
            ? "Restore " + restore
            : "Read an older batch with VERSION AS OF "
                + commits.headMap(batchId).lastKey()
                + ", or restore "
                + restore;
    return Errors.corruptFile(location, log + "/" + batchId, "batch " + batchId, cause, remedy);
  }

  private Operator readOperator(long id, long batchId) throws IOException {
    Path opDir = new Path(new Path(root, "state"), Long.toString(id));
    boolean v2 = fs.exists(new Path(new Path(opDir, "_metadata"), "v2"));
    if (!v2 && !fs.exists(new Path(new Path(opDir, "_metadata"), "metadata"))) {
      return OperatorInference.infer(fs, opDir, id, recordedConf(batchId));
    }
    String file =
        "state/"
            + id
            + "/_metadata/"
            + (v2 ? "v2/ (entry for batch " + batchId + " or the latest before it)" : "metadata");
    Option<OperatorStateMetadata> read;
    try {
      read = OperatorMetadataFiles.read(opDir, hadoopConf, v2 ? 2 : 1, batchId);
    } catch (RuntimeException e) {
      if (Errors.isSavepointError(e)) throw e; // e.g. this Spark cannot read such metadata
      throw damagedOperatorFile(file, id, e);
    }
    if (read.isEmpty()) {
      return new Operator(
          id, "unknown", 0, countPartitions(opDir), List.of("default"), OperatorProperties.NONE);
    }
    OperatorStateMetadata metadata = read.get();
    List<String> stores = new ArrayList<>();
    int partitions = 0;
    for (StateStoreMetadata store : OperatorMetadataFiles.stores(metadata)) {
      stores.add(store.storeName());
      partitions = Math.max(partitions, store.numPartitions());
    }
    OperatorProperties properties = OperatorProperties.NONE;
    if (metadata instanceof OperatorStateMetadataV2 m2) {
      try {
        properties = OperatorProperties.parse(m2.operatorPropertiesJson());
      } catch (IOException e) {
        throw damagedOperatorFile(file + ", its operatorPropertiesJson", id, e);
      }
    }
    return new Operator(
        id,
        metadata.operatorInfo().operatorName(),
        metadata.version(),
        partitions,
        stores,
        properties);
  }

  private RuntimeException damagedOperatorFile(String file, long id, Exception cause) {
    return Errors.corruptFile(
        location,
        file,
        "operator " + id,
        cause,
        "Restore the file from a" + " copy of the checkpoint.");
  }

  private int countPartitions(Path opDir) throws IOException {
    int n = 0;
    for (FileStatus status : fs.listStatus(opDir)) {
      if (status.isDirectory() && status.getPath().getName().matches("\\d+")) n++;
    }
    return n;
  }

  /**
   * Which Spark version wrote {@code batchId} ("4.0", "3.5 or earlier", ...), told by its files
   * (see {@link WriterVersion}).
   */
  public String writtenBy(long batchId) {
    List<Operator> operators = operators(batchId);
    boolean metadata = operators.stream().anyMatch(op -> op.inferred().isEmpty());
    boolean commitWatermark;
    try {
      commitWatermark = commitLog.metadata(batchId).has("nextBatchWatermarkMs");
    } catch (IOException e) {
      throw damagedLogEntry(CheckpointLog.COMMITS, batchId, e);
    }
    return WriterVersion.of(
        recordedConf(batchId),
        commitWatermark,
        metadata,
        !operators.isEmpty() && hasStateChecksums(operators.get(0)));
  }

  /** True when partition 0 of the operator's first store has Spark's state checksum files. */
  private boolean hasStateChecksums(Operator op) {
    Path partition = new Path(new Path(new Path(root, "state"), Long.toString(op.id())), "0");
    String store = op.storeNames().isEmpty() ? "default" : op.storeNames().get(0);
    Path dir = store.equals("default") ? partition : new Path(partition, store);
    try {
      for (FileStatus status : fs.listStatus(dir)) {
        String name = status.getPath().getName();
        if (!name.startsWith(".")
            && name.endsWith(".crc")
            && StoreFiles.isData(name.substring(0, name.length() - 4))) {
          return true;
        }
      }
    } catch (IOException e) {
      // no such folder: no checksums to tell by
    }
    return false;
  }

  /** Total bytes of an operator's state files (all versions kept on disk). */
  public long stateBytes(long operatorId) {
    try {
      Path opDir = new Path(new Path(root, "state"), Long.toString(operatorId));
      return fs.getContentSummary(opDir).getLength();
    } catch (IOException e) {
      return -1;
    }
  }
}
