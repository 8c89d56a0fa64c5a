package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkContext$;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The query's own names for its aggregations' value columns, as the query recorded them when it
 * ran ({@code sql.ValueNamesListener}): {@code _savepoint/value-names.json} of the checkpoint,
 * operator id to Spark's buffer names and the query's names for them, e.g.
 * {@code {"0": {"buffers": ["count", "sum"], "names": ["cnt", "total"]}}} (a null name keeps the
 * buffer's). Spark never reads {@code _savepoint/}.
 *
 * <p>The names are used only while they fit the checkpoint ({@link #fitting}): every recorded
 * operator is one of its aggregations and the table's value columns are the recorded buffers. A
 * query changed since (another aggregation, other buffers) leaves Spark's names.
 */
public final class ValueNames {
  /** The file, relative to the checkpoint root. */
  public static final String FILE = "_savepoint/value-names.json";

  /** How long a read waits for the names a query of this driver is about to record. */
  static final long EVENT_WAIT_MS = 5_000;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Logger LOG = LoggerFactory.getLogger(ValueNames.class);

  /** Checkpoints (qualified roots) whose query runs in this driver and has not recorded yet. */
  private static final Set<String> EXPECTED = ConcurrentHashMap.newKeySet();

  /** Files found not to fit, by checkpoint and content: each is reported once. */
  private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

  private ValueNames() {}

  /** One aggregation's value columns: Spark's buffer names, the query's names (null: keep). */
  public record Columns(List<String> buffers, List<String> names) {}

  /**
   * The recorded names of aggregation {@code op}'s value columns when the file fits the
   * checkpoint as of {@code batchId} and the table ({@code schema}: the state reader's, with its
   * {@code value} struct) has the recorded buffers; empty (Spark's names) otherwise, or when
   * nothing was recorded.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when unreadable
   */
  public static List<String> fitting(
      Checkpoint ckpt, long batchId, Operator op, StructType schema) {
    Map<Long, Columns> recorded = read(ckpt);
    if (recorded.isEmpty()) return List.of();
    List<Long> aggregations =
        ckpt.operators(batchId).stream()
            .filter(o -> o.kind().hasValueNames())
            .map(Operator::id)
            .toList();
    Columns columns = recorded.get(op.id());
    List<String> buffers = valueFields(schema);
    String misfit =
        !aggregations.containsAll(recorded.keySet())
            ? "it names operators "
                + recorded.keySet()
                + ", the checkpoint's aggregations are "
                + aggregations
            : columns == null
                ? "it has no names for " + op.uid()
                : !columns.buffers().equals(buffers)
                    ? op.uid() + " holds " + buffers + ", not " + columns.buffers()
                    : null;
    if (misfit == null) return columns.names();
    if (REPORTED.add(ckpt.location() + recorded)) {
      LOG.warn(
          "{} of checkpoint '{}' does not fit the checkpoint ({}): it was recorded by"
              + " another version of the query; value columns keep Spark's names until the query"
              + " runs again with spark-savepoint's settings.",
          FILE,
          ckpt.location(),
          misfit);
    }
    return List.of();
  }

  /** Operator id to recorded columns; empty when there is no file. */
  public static Map<Long, Columns> read(Checkpoint ckpt) {
    awaitRecording(ckpt);
    try {
      return read(ckpt.fileSystem(), ckpt.root());
    } catch (IOException | RuntimeException e) {
      throw Errors.corruptFile(
          ckpt.location(),
          FILE,
          "the checkpoint",
          e,
          "Remove the file (value columns keep Spark's names) or run the query again.");
    }
  }

  static Map<Long, Columns> read(FileSystem fs, Path root) throws IOException {
    Map<Long, Columns> recorded = new TreeMap<>();
    for (Map.Entry<String, JsonNode> field :
        CheckpointFiles.jsonFields(fs, new Path(root, FILE)).entrySet()) {
      Columns columns =
          new Columns(texts(field.getValue().get("buffers")), texts(field.getValue().get("names")));
      if (columns.buffers().size() != columns.names().size() || columns.buffers().contains(null)) {
        throw new IOException(
            "operator "
                + field.getKey()
                + " has "
                + columns.buffers().size()
                + " buffers and "
                + columns.names().size()
                + " names");
      }
      recorded.put(Long.parseLong(field.getKey()), columns);
    }
    return recorded;
  }

  /**
   * Records {@code columns} (operator id to value columns) for the checkpoint at {@code root},
   * replacing what was recorded, unless that is the same already.
   *
   * @return whether the file was written
   */
  public static boolean record(Path root, Map<Long, Columns> columns, Configuration conf)
      throws IOException {
    FileSystem fs = root.getFileSystem(conf);
    Map<Long, Columns> sorted = new TreeMap<>(columns);
    try {
      if (read(fs, root).equals(sorted)) return false;
    } catch (IOException | RuntimeException e) {
      // unreadable: replaced below
    }
    ObjectNode node = JSON.createObjectNode();
    sorted.forEach(
        (id, c) -> {
          ObjectNode entry = node.putObject(Long.toString(id));
          ArrayNode buffers = entry.putArray("buffers");
          c.buffers().forEach(buffers::add);
          ArrayNode names = entry.putArray("names");
          c.names().forEach(names::add);
        });
    CheckpointFiles.replace(new Path(root, FILE), CheckpointFiles.prettyJson(node), conf);
    return true;
  }

  /**
   * Records the names recorded in {@code from} in its copy at {@code root}, for the operators
   * the copy keeps ({@code ids}: source operator id to the copy's); nothing when none are.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when unreadable
   */
  public static void copy(Checkpoint from, Path root, Map<Long, Long> ids, Configuration conf)
      throws IOException {
    Map<Long, Columns> kept = new TreeMap<>();
    read(from)
        .forEach(
            (id, columns) -> {
              if (ids.containsKey(id)) kept.put(ids.get(id), columns);
            });
    if (!kept.isEmpty()) record(root, kept, conf);
  }

  /** A query of this driver on the checkpoint at {@code root} is about to record its names. */
  public static void expect(Path root) {
    EXPECTED.add(root.toString());
  }

  /** The query on the checkpoint at {@code root} recorded its names, or will not. */
  public static void settled(Path root) {
    EXPECTED.remove(root.toString());
  }

  /**
   * Spark delivers progress events, on which a query records its names, asynchronously: a
   * query of this driver that has just stopped may not have recorded yet. Waits (at most
   * {@link #EVENT_WAIT_MS}) until the events posted so far are delivered.
   */
  private static void awaitRecording(Checkpoint ckpt) {
    if (EXPECTED.isEmpty()) return;
    String root = ckpt.fileSystem().makeQualified(ckpt.root()).toString();
    if (!EXPECTED.contains(root)) return;
    scala.Option<SparkContext> context = SparkContext$.MODULE$.getActive();
    if (context.isEmpty()) return;
    try {
      context.get().listenerBus().waitUntilEmpty(EVENT_WAIT_MS);
    } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
      // still busy: read what is there
    }
  }

  private static List<String> texts(JsonNode array) throws IOException {
    if (array == null || !array.isArray()) throw new IOException("buffers and names are lists");
    List<String> texts = new ArrayList<>();
    for (JsonNode n : array) texts.add(n.isNull() ? null : n.asText());
    return texts;
  }

  /** The names of the fields of {@code schema}'s {@code value} struct (none without one). */
  private static List<String> valueFields(StructType schema) {
    return Arrays.stream(schema.fields())
        .filter(f -> f.name().equals("value") && f.dataType() instanceof StructType)
        .flatMap(f -> Arrays.stream(((StructType) f.dataType()).fields()))
        .map(StructField::name)
        .toList();
  }
}
