package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of a checkpoint's two batch logs: {@code offsets/} (batches planned) or {@code commits/}
 * (batches committed), one file per batch id holding a version line ({@code v1}) and a JSON line.
 * Also the batch arithmetic every edit follows: after batch N the state is store version N+1; an
 * edit commits batch N+1 ({@link #nextBatch}) as version N+2 ({@link #stateVersion}).
 */
public final class CheckpointLog {
  public static final String OFFSETS = "offsets";
  public static final String COMMITS = "commits";

  /**
   * The SQL conf of the checkpoint format: 2 records state checkpoint ids in {@code commits/N}.
   * The offset log does not record it; Spark's state stores and reader take it from the conf.
   */
  public static final String FORMAT_VERSION_CONF =
      "spark.sql.streaming.stateStore.checkpointFormatVersion";

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Logger LOG = LoggerFactory.getLogger("dev.sparksavepoint.checkpoint");

  /** Files whose stale checksum was logged: once per file and JVM. */
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private final FileSystem fs;
  private final Path dir;

  /** Entries read although their Hadoop checksum file does not match them. */
  private final Set<Long> staleChecksums = ConcurrentHashMap.newKeySet();

  public CheckpointLog(FileSystem fs, Path root, String name) {
    this.fs = fs;
    this.dir = new Path(root, name);
  }

  /** The batch an edit after batch {@code batchId} commits. */
  public static long nextBatch(long batchId) {
    return batchId + 1;
  }

  /** The state store version that holds the state after batch {@code batchId}. */
  public static long stateVersion(long batchId) {
    return batchId + 1;
  }

  /** {@code <log>/<batchId>}. */
  public Path file(long batchId) {
    return new Path(dir, Long.toString(batchId));
  }

  /**
   * Every entry: batch id to the file's modification time (epoch ms).
   *
   * @throws java.io.FileNotFoundException when the log folder does not exist
   */
  public TreeMap<Long, Long> entries() throws IOException {
    TreeMap<Long, Long> batches = new TreeMap<>();
    for (FileStatus status : fs.listStatus(dir)) {
      String file = status.getPath().getName();
      if (status.isFile() && file.matches("\\d+")) {
        batches.put(Long.parseLong(file), status.getModificationTime());
      }
    }
    return batches;
  }

  /**
   * The bytes of entry {@code batchId}, read as Spark reads it: also when its Hadoop checksum
   * file no longer matches ({@link CheckpointFiles#readAsSpark}), which is then remembered
   * ({@link #hasStaleChecksum}) and logged once per file at WARN.
   */
  public byte[] bytes(long batchId) throws IOException {
    return CheckpointFiles.readAsSpark(fs, file(batchId), () -> staleChecksum(batchId));
  }

  /**
   * True when entry {@code batchId} reads although its Hadoop checksum file ({@code
   * .<batch>.crc}) does not match it: it was changed after it was written.
   */
  public boolean hasStaleChecksum(long batchId) throws IOException {
    if (!staleChecksums.contains(batchId)) bytes(batchId);
    return staleChecksums.contains(batchId);
  }

  /** The name of entry {@code batchId} as a checkpoint's files name it: {@code offsets/3}. */
  public String entryName(long batchId) {
    return dir.getName() + "/" + batchId;
  }

  private void staleChecksum(long batchId) {
    staleChecksums.add(batchId);
    if (WARNED.add(file(batchId).toString())) {
      LOG.warn("savepoint: " + staleChecksumLine(entryName(batchId)) + " (" + file(batchId) + ")");
    }
  }

  /** The one line that tells of a log file read although its checksum file does not match. */
  public static String staleChecksumLine(String entry) {
    int slash = entry.lastIndexOf('/');
    String crc = entry.substring(0, slash + 1) + "." + entry.substring(slash + 1) + ".crc";
    return entry
        + " does not match its Hadoop checksum file "
        + crc
        + ": it was changed after"
        + " Spark wrote it. Spark's checkpoint file manager reads it without checking, and so"
        + " does this tool; an edit writes its new entries with checksums of their own.";
  }

  /** The JSON line of entry {@code batchId}; IOException when it is damaged. */
  public JsonNode metadata(long batchId) throws IOException {
    return parseEntry(bytes(batchId));
  }

  /** Writes {@code bytes} as the new entry {@code batchId}, failing if it exists. */
  public void create(long batchId, byte[] bytes, Configuration conf) throws IOException {
    CheckpointFiles.writeNew(file(batchId), bytes, conf);
  }

  /** {@link #create}, running {@code beforePublish} before the entry becomes visible. */
  public void create(long batchId, byte[] bytes, Configuration conf, Runnable beforePublish)
      throws IOException {
    CheckpointFiles.writeNew(file(batchId), bytes, conf, beforePublish);
  }

  /**
   * The JSON line of a log entry.
   *
   * @throws IOException when the entry is empty, has no version line such as {@code v1}
   *     followed by a line, or that line is not JSON
   */
  public static JsonNode parseEntry(byte[] entry) throws IOException {
    List<String> lines = new String(entry, StandardCharsets.UTF_8).lines().limit(2).toList();
    if (lines.isEmpty()) throw new IOException("the file is empty");
    if (lines.size() < 2 || !lines.get(0).matches("v\\d+")) {
      throw new IOException("expected a version line such as v1 and a JSON line");
    }
    return JSON.readTree(lines.get(1));
  }

  /**
   * The state checkpoint ids a commit entry records (checkpoint format v2): operator id to
   * [partition][store index]; null when it records none (format v1). An empty object is none
   * too: Spark 4.0.0 wrote {@code "stateUniqueIds":{}} into every format v1 commit.
   *
   * @throws IOException when {@code stateUniqueIds} is not shaped as Spark writes it
   */
  public static Map<Long, String[][]> stateUniqueIds(JsonNode commit) throws IOException {
    JsonNode ids = commit.path("stateUniqueIds");
    if (ids.isMissingNode() || ids.isNull() || (ids.isObject() && ids.isEmpty())) return null;
    if (!ids.isObject()) throw new IOException("stateUniqueIds is not a JSON object");
    Map<Long, String[][]> result = new HashMap<>();
    Iterator<Map.Entry<String, JsonNode>> ops = ids.fields();
    while (ops.hasNext()) {
      Map.Entry<String, JsonNode> op = ops.next();
      if (!op.getKey().matches("\\d+")) throw new IOException("operator id " + op.getKey());
      result.put(Long.parseLong(op.getKey()), idTable(op.getValue()));
    }
    return result;
  }

  private static String[][] idTable(JsonNode partitions) throws IOException {
    if (!partitions.isArray()) throw new IOException("stateUniqueIds entry is not an array");
    String[][] table = new String[partitions.size()][];
    for (int p = 0; p < table.length; p++) {
      JsonNode stores = partitions.get(p);
      if (!stores.isArray()) throw new IOException("stateUniqueIds partition is not an array");
      table[p] = new String[stores.size()];
      for (int s = 0; s < stores.size(); s++) {
        if (!stores.get(s).isTextual()) throw new IOException("stateUniqueIds id is not text");
        table[p][s] = stores.get(s).asText();
      }
    }
    return table;
  }

  /** A commit entry with its {@code stateUniqueIds} replaced by {@code ids}, version line kept. */
  public static byte[] withStateUniqueIds(byte[] entry, JsonNode ids) throws IOException {
    return withMetadataField(entry, "stateUniqueIds", ids);
  }

  /**
   * A log entry whose metadata line (the JSON line after the version line: a commit's only
   * line, an offsets entry's {@code batchWatermarkMs, batchTimestampMs, conf}) has field
   * {@code name} set to {@code value}, in place when present; every other line kept as is.
   */
  public static byte[] withMetadataField(byte[] entry, String name, JsonNode value)
      throws IOException {
    String[] lines = new String(entry, StandardCharsets.UTF_8).split("\n", -1);
    if (lines.length < 2 || !lines[0].matches("v\\d+")) {
      throw new IOException("expected a version line such as v1 and a JSON line");
    }
    JsonNode metadata = JSON.readTree(lines[1]);
    if (!(metadata instanceof ObjectNode object)) throw new IOException("not a JSON object");
    object.set(name, value);
    lines[1] = JSON.writeValueAsString(object);
    return String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
  }
}
