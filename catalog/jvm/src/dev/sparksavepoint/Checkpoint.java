package dev.sparksavepoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadata;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadataReader;
import org.apache.spark.sql.execution.streaming.state.StateStoreMetadata;
import scala.Option;

/**
 * A streaming checkpoint (or savepoint) folder, read through Hadoop's FileSystem API and Spark's
 * own operator metadata readers. Reads only small metadata files: no Spark job is launched.
 *
 * <p>Example: {@code Checkpoint.open("s3a://bucket/ckpt", hadoopConf).operators(lastCommitted)}
 */
public final class Checkpoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String location;
  private final Path root;
  private final FileSystem fs;
  private final Configuration hadoopConf;
  /** commits/ entries: batch id -> commit time (ms). */
  private final TreeMap<Long, Long> commits;
  private final TreeMap<Long, Long> offsets;

  private Checkpoint(String location, Path root, FileSystem fs, Configuration hadoopConf)
      throws IOException {
    this.location = location;
    this.root = root;
    this.fs = fs;
    this.hadoopConf = hadoopConf;
    this.commits = listLog("commits");
    this.offsets = listLog("offsets");
  }

  /** True when {@code location} holds a checkpoint's commit log. */
  public static boolean exists(String location, Configuration hadoopConf) {
    try {
      Path root = new Path(location);
      return root.getFileSystem(hadoopConf).exists(new Path(root, "commits"));
    } catch (IOException e) {
      throw Errors.io(location, e);
    }
  }

  /** Opens a checkpoint folder, failing with an actionable error when it is not one. */
  public static Checkpoint open(String location, Configuration hadoopConf) {
    try {
      Path root = new Path(location);
      FileSystem fs = root.getFileSystem(hadoopConf);
      if (!fs.exists(root)) throw Errors.noSuchFolder(location);
      if (!fs.exists(new Path(root, "offsets")) || !fs.exists(new Path(root, "commits"))) {
        String found = Arrays.stream(fs.listStatus(root))
            .map(s -> s.getPath().getName() + (s.isDirectory() ? "/" : ""))
            .sorted().limit(10).collect(Collectors.joining(", "));
        throw Errors.notACheckpoint(location, found.isEmpty() ? "nothing" : found);
      }
      return new Checkpoint(location, root, fs, hadoopConf);
    } catch (IOException e) {
      throw Errors.io(location, e);
    }
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

  private TreeMap<Long, Long> listLog(String name) throws IOException {
    TreeMap<Long, Long> batches = new TreeMap<>();
    Path dir = new Path(root, name);
    if (!fs.exists(dir)) return batches;
    for (FileStatus status : fs.listStatus(dir)) {
      String file = status.getPath().getName();
      if (status.isFile() && file.matches("\\d+")) {
        batches.put(Long.parseLong(file), status.getModificationTime());
      }
    }
    return batches;
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
      String first = commits.isEmpty()
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
    if (metadata != null && metadata.has("conf")) {
      metadata.get("conf").fields().forEachRemaining(e -> conf.put(e.getKey(), e.getValue().asText()));
    }
    return conf;
  }

  /** The offset-log metadata line of a batch (watermark, batch timestamp, confs), or null. */
  public JsonNode offsetMetadata(long batchId) {
    Path file = new Path(new Path(root, "offsets"), Long.toString(batchId));
    try (BufferedReader reader = new BufferedReader(
        new InputStreamReader(fs.open(file), StandardCharsets.UTF_8))) {
      reader.readLine(); // version line, e.g. "v1"
      String line = reader.readLine();
      return line == null ? null : JSON.readTree(line);
    } catch (IOException e) {
      return null;
    }
  }

  /** The batch timestamp (epoch ms) offsets/{batchId} records; -1 when unreadable. */
  public long batchTimestampMs(long batchId) {
    JsonNode metadata = offsetMetadata(batchId);
    return metadata == null ? -1 : metadata.path("batchTimestampMs").asLong(-1);
  }

  /** The streaming query's id from the checkpoint's metadata file, or null. */
  public java.util.UUID queryId() {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(
        fs.open(new Path(root, "metadata")), StandardCharsets.UTF_8))) {
      return java.util.UUID.fromString(JSON.readTree(reader.readLine()).path("id").asText());
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The stateful operators of the query as of {@code batchId}, ordered by operator id. */
  public List<Operator> operators(long batchId) {
    List<Operator> operators = new ArrayList<>();
    Path stateDir = new Path(root, "state");
    try {
      if (!fs.exists(stateDir)) return operators;
      List<Long> ids = new ArrayList<>();
      for (FileStatus status : fs.listStatus(stateDir)) {
        String name = status.getPath().getName();
        if (status.isDirectory() && name.matches("\\d+")) ids.add(Long.parseLong(name));
      }
      Collections.sort(ids);
      for (long id : ids) operators.add(readOperator(id, batchId));
    } catch (IOException e) {
      throw Errors.io(location, e);
    }
    return operators;
  }

  /** Finds an operator by uid or plain operator id. */
  public Operator operator(String name, long batchId) {
    List<Operator> operators = operators(batchId);
    for (Operator op : operators) {
      if (op.answersTo(name)) return op;
    }
    throw Errors.noSuchOperator(location, name, describe(operators));
  }

  /** The operators of the last committed batch, as "agg_0 (stateStoreSave)" items. */
  public List<String> operatorNames() {
    if (!hasCommittedBatch()) return List.of("none (no committed batch)");
    return List.of(describe(operators(lastCommitted())));
  }

  private static String describe(List<Operator> operators) {
    return operators.isEmpty()
        ? "none (the query has no stateful operator)"
        : operators.stream().map(o -> o.uid() + " (" + o.name() + ")")
            .collect(Collectors.joining(", "));
  }

  /**
   * Checks that the log entries of {@code batchId} ({@code offsets/N}, {@code commits/N}) and the
   * {@code metadata} file parse, so that a damaged file is reported by name, not as a parser
   * trace from deep inside Spark.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE
   */
  public void checkLogs(long batchId) {
    checkLogEntry("commits", batchId);
    checkLogEntry("offsets", batchId);
    Path metadata = new Path(root, "metadata");
    try {
      if (fs.exists(metadata)) JSON.readTree(readHead(metadata, 1).get(0));
    } catch (IOException | RuntimeException e) {
      throw Errors.corruptFile(location, "metadata", "the checkpoint", e, "Restore it from a copy"
          + " of the checkpoint; it holds only the query id: {\"id\":\"<uuid>\"}.");
    }
  }

  private void checkLogEntry(String log, long batchId) {
    Path file = new Path(new Path(root, log), Long.toString(batchId));
    try {
      List<String> head = readHead(file, 2);
      if (head.size() < 2 || !head.get(0).matches("v\\d+")) {
        throw new IOException("expected a version line such as v1 and a JSON line");
      }
      JSON.readTree(head.get(1));
    } catch (IOException | RuntimeException e) {
      String restore = "the file from a copy of the checkpoint.";
      String remedy = commits.headMap(batchId).isEmpty() ? "Restore " + restore
          : "Read an older batch with VERSION AS OF " + commits.headMap(batchId).lastKey()
              + ", or restore " + restore;
      throw Errors.corruptFile(location, log + "/" + batchId, "batch " + batchId, e, remedy);
    }
  }

  /** The first {@code lines} lines of a small file (fewer when it is shorter). */
  private List<String> readHead(Path file, int lines) throws IOException {
    List<String> head = new ArrayList<>();
    try (BufferedReader reader = new BufferedReader(
        new InputStreamReader(fs.open(file), StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null && head.size() < lines;
          line = reader.readLine()) {
        head.add(line);
      }
    }
    if (head.isEmpty()) throw new IOException("the file is empty");
    return head;
  }

  private Operator readOperator(long id, long batchId) throws IOException {
    Path opDir = new Path(new Path(root, "state"), Long.toString(id));
    boolean v2 = fs.exists(new Path(new Path(opDir, "_metadata"), "v2"));
    Option<OperatorStateMetadata> read;
    try {
      read = OperatorStateMetadataReader
          .createReader(opDir, hadoopConf, v2 ? 2 : 1, batchId, false).read();
    } catch (RuntimeException e) {
      String file = "state/" + id + "/_metadata/" + (v2 ? "v2/ (entry for batch " + batchId
          + " or the latest before it)" : "metadata");
      throw Errors.corruptFile(location, file, "operator " + id, e, "Restore the file from a"
          + " copy of the checkpoint.");
    }
    if (read.isEmpty()) {
      return new Operator(id, "unknown", 0, countPartitions(opDir), List.of("default"), Map.of(),
          false, "");
    }
    OperatorStateMetadata metadata = read.get();
    List<String> stores = new ArrayList<>();
    int partitions = 0;
    scala.collection.Iterator<StateStoreMetadata> it = metadata.stateStoresMetadata().iterator();
    while (it.hasNext()) {
      StateStoreMetadata store = it.next();
      stores.add(store.storeName());
      partitions = Math.max(partitions, store.numPartitions());
    }
    String properties = "";
    Map<String, String> vars = new java.util.LinkedHashMap<>();
    boolean timers = false;
    if (metadata instanceof org.apache.spark.sql.execution.streaming.state.OperatorStateMetadataV2 m2) {
      properties = m2.operatorPropertiesJson();
      JsonNode props = JSON.readTree(properties);
      timers = props.has("timeMode") && !props.get("timeMode").asText().equalsIgnoreCase("NoTime");
      for (JsonNode var : props.path("stateVariables")) {
        String name = var.path("stateName").asText();
        if (!name.startsWith("$") && !name.startsWith("_")) {
          vars.put(name, var.path("stateVariableType").asText());
        }
      }
    }
    return new Operator(id, metadata.operatorInfo().operatorName(), metadata.version(), partitions,
        stores, vars, timers, properties);
  }

  private int countPartitions(Path opDir) throws IOException {
    int n = 0;
    for (FileStatus status : fs.listStatus(opDir)) {
      if (status.isDirectory() && status.getPath().getName().matches("\\d+")) n++;
    }
    return n;
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
