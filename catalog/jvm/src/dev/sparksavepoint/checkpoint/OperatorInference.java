package dev.sparksavepoint.checkpoint;

import dev.sparksavepoint.adapters.SchemaFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * An operator of a checkpoint that has no operator metadata (Spark 3.5 wrote none), described
 * from what the checkpoint does have: the folder layout {@code state/<opId>/<partition>/<store>},
 * the state schema file of partition 0 (read with Spark's own {@code SchemaHelper}), and the kind
 * told by the shape of the state:
 *
 * <ul>
 *   <li>join store folders ({@code left-keyToNumValues}, ...): a stream-stream join;
 *   <li>a value of one {@code __dummy__} NULL column: dropDuplicates; a value that holds the
 *       key's fields and more, with aggregation state format 2 recorded (or other columns
 *       than aggregation buffers): a dropDuplicates of Spark 3.2 to 3.4 ({@link #holdsWholeRow});
 *   <li>a value of one {@code expiresAtMicros} column: dropDuplicatesWithinWatermark;
 *   <li>a {@code groupState} struct in the value: (flat)MapGroupsWithState or
 *       applyInPandasWithState;
 *   <li>a key ending with {@code sessionStartTime} and a window struct in the value: a session
 *       window aggregation;
 *   <li>one void {@code key} and one {@code value}: a streaming limit;
 *   <li>a value made of Spark's aggregation buffers ({@code count}, {@code sum}, {@code max},
 *       ...) and the grouping columns: an aggregation.
 * </ul>
 *
 * <p>Anything else keeps the name {@code unknown} (uid {@code op_<id>}) and is still readable.
 * {@link Operator#inferred()} lists what was inferred, and {@link #NO_STATE_SCHEMA} when partition
 * 0 has state but no schema file: Spark before 3.1 wrote none (SPARK-27237 added them), and
 * Spark's state reader cannot decode state without one.
 */
final class OperatorInference {
  static final String FROM_LAYOUT = "partitions and stores from the folder layout";
  static final String FROM_SCHEMA = "operator kind from the state schema";

  /**
   * A dropDuplicates whose schema file records the whole input row as its value (Spark 3.2 to
   * 3.4): its state is read and written with the placeholder value its rows hold.
   */
  static final String WHOLE_ROW_VALUE =
      "value schema recorded as the whole row (Spark 3.2 to 3.4), read as dropDuplicates'"
          + " placeholder";

  /** Not an inference but what prevents one: Spark before 3.1 wrote no state schema file. */
  static final String NO_STATE_SCHEMA = "no state schema file";

  private static final Pattern VERSION_FILE =
      Pattern.compile("\\d+\\.(delta|snapshot|zip|changelog)");
  private static final Pattern JOIN_STORE =
      Pattern.compile("(left|right)-(keyToNumValues|keyWithIndexToValue)");

  /** Aggregation buffer attribute names of Spark's built-in aggregate functions. */
  private static final Pattern AGG_BUFFER =
      Pattern.compile(
          "count|sum|isEmpty|max|min|first|last|valueSet|avg|n|m2|m3|m4|xAvg|yAvg|ck|xMk|yMk"
              + "|MS\\[\\d+\\]|buf|every|some|bool_(and|or)|bit_(and|or|xor)|product|.*Buffer.*");

  /** The schema file of a store, in partition 0 (Spark's {@code PARTITION_ID_TO_CHECK_SCHEMA}). */
  static final String SCHEMA_FILE = "_metadata/schema";

  private OperatorInference() {}

  /**
   * The operator in {@code opDir} described from its files; {@code conf} is the offset-log conf
   * of the batch (its aggregation state format tells a dropDuplicates from an aggregation).
   */
  static Operator infer(FileSystem fs, Path opDir, long id, Map<String, String> conf)
      throws IOException {
    List<Path> partitions = partitionDirs(fs, opDir);
    List<String> stores = new ArrayList<>();
    String name = "unknown";
    List<String> inferred = new ArrayList<>(List.of(FROM_LAYOUT));
    if (!partitions.isEmpty()) {
      Path first = partitions.get(0);
      boolean defaultStore = false;
      for (FileStatus status : fs.listStatus(first)) {
        String entry = status.getPath().getName();
        if (status.isDirectory() && JOIN_STORE.matcher(entry).matches()) stores.add(entry);
        if (!status.isDirectory() && VERSION_FILE.matcher(entry).matches()) defaultStore = true;
        if (entry.equals("_metadata")) defaultStore = true;
      }
      stores.sort(null);
      Path schemaFile = null;
      boolean wholeRow = false;
      if (!stores.isEmpty()) {
        name = "symmetricHashJoin";
        schemaFile = new Path(new Path(first, stores.get(0)), SCHEMA_FILE);
      } else if (defaultStore) {
        stores.add("default");
        schemaFile = new Path(first, SCHEMA_FILE);
        StructType[] schema = readSchema(fs, schemaFile);
        if (schema != null) {
          name = kindOf(schema[0], schema[1], aggregationFormat1(conf));
          wholeRow = name.equals("dedupe") && holdsWholeRow(schema[0], schema[1]);
        }
      }
      if (!name.equals("unknown")) inferred.add(FROM_SCHEMA);
      if (wholeRow) inferred.add(WHOLE_ROW_VALUE);
      if (schemaFile != null && !fs.exists(schemaFile)) inferred.add(NO_STATE_SCHEMA);
    }
    if (stores.isEmpty()) stores.add("default");
    return new Operator(
        id, name, 0, partitions.size(), stores, OperatorProperties.NONE, List.copyOf(inferred));
  }

  /**
   * Whether an aggregation of this batch keeps state format 1 (the whole row as its value:
   * grouping columns and buffers), as before Spark 2.4 recorded the format and by choice after.
   */
  private static boolean aggregationFormat1(Map<String, String> conf) {
    return !"2".equals(conf.get("spark.sql.streaming.aggregation.stateFormatVersion"));
  }

  /**
   * Spark's operator name for a default store with these schemas, or {@code unknown};
   * {@code aggregationFormat1}: aggregations of the batch keep the whole row as their value.
   */
  static String kindOf(StructType key, StructType value, boolean aggregationFormat1) {
    StructField[] fields = value.fields();
    if (fields.length == 1
        && fields[0].name().equals("__dummy__")
        && fields[0].dataType() instanceof NullType) {
      return "dedupe";
    }
    if (fields.length == 1 && fields[0].name().equals("expiresAtMicros")) {
      return "dedupeWithinWatermark";
    }
    if (Arrays.stream(fields).anyMatch(f -> f.name().equals("groupState"))) {
      return "flatMapGroupsWithState";
    }
    if (isSessionWindow(key, value)) return "sessionWindowStateStoreSaveExec";
    if (isGlobalLimit(key, value)) return "globalLimit";
    Set<String> keyNames = Set.of(key.fieldNames());
    boolean buffers =
        fields.length > 0
            && key.fields().length > 0
            && Arrays.stream(fields)
                .allMatch(
                    f -> keyNames.contains(f.name()) || AGG_BUFFER.matcher(f.name()).matches())
            && Arrays.stream(fields).anyMatch(f -> !keyNames.contains(f.name()));
    if (holdsWholeRow(key, value) && !(aggregationFormat1 && buffers)) return "dedupe";
    return buffers ? "stateStoreSave" : "unknown";
  }

  /**
   * A value that holds every key field (same name and type) and more: the whole input row. An
   * aggregation of state format 1 keeps such values (grouping columns and buffers); so did
   * dropDuplicates from Spark 3.2 to 3.4 in its schema file (SPARK-39650), while the values it
   * stored are placeholders of one null field, as 3.5 and later record ({@code __dummy__}).
   */
  static boolean holdsWholeRow(StructType key, StructType value) {
    if (key.fields().length == 0 || value.fields().length <= key.fields().length) return false;
    Set<StructField> valueFields =
        Arrays.stream(value.fields())
            .map(f -> new StructField(f.name(), f.dataType(), true, f.metadata()))
            .collect(java.util.stream.Collectors.toSet());
    return Arrays.stream(key.fields())
        .allMatch(
            f -> valueFields.contains(new StructField(f.name(), f.dataType(), true, f.metadata())));
  }

  /**
   * A session window's state: keyed by the grouping columns and the session's start
   * ({@code sessionStartTime}), each value the session's whole row (its window struct first).
   */
  private static boolean isSessionWindow(StructType key, StructType value) {
    StructField[] keys = key.fields();
    return keys.length > 0
        && keys[keys.length - 1].name().equals("sessionStartTime")
        && Arrays.stream(value.fields())
            .anyMatch(
                f ->
                    f.dataType() instanceof StructType s
                        && Set.of(s.fieldNames()).containsAll(Set.of("start", "end")));
  }

  /** A streaming limit's state: one void {@code key}, the count of rows emitted as its value. */
  private static boolean isGlobalLimit(StructType key, StructType value) {
    return key.fields().length == 1
        && key.fields()[0].dataType() instanceof NullType
        && value.fields().length == 1
        && value.fields()[0].name().equals("value");
  }

  private static List<Path> partitionDirs(FileSystem fs, Path opDir) throws IOException {
    List<Path> dirs = new ArrayList<>();
    for (FileStatus status : fs.listStatus(opDir)) {
      if (status.isDirectory() && status.getPath().getName().matches("\\d+")) {
        dirs.add(status.getPath());
      }
    }
    dirs.sort((a, b) -> Long.compare(Long.parseLong(a.getName()), Long.parseLong(b.getName())));
    return dirs;
  }

  /**
   * The key and value schema (of the first column family) of a v1/v2 schema file, or null when
   * there is no such file.
   */
  private static StructType[] readSchema(FileSystem fs, Path file) throws IOException {
    if (!fs.exists(file)) return null;
    try (FSDataInputStream in = fs.open(file)) {
      return SchemaFiles.keyAndValue(in.readUTF(), in);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
