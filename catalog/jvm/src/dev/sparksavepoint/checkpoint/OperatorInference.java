package dev.sparksavepoint.checkpoint;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.state.SchemaHelper;
import org.apache.spark.sql.execution.streaming.state.StateStoreColFamilySchema;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * An operator of a checkpoint that has no operator metadata (Spark 3.5 wrote none), described
 * from what the checkpoint does have: the folder layout {@code state/<opId>/<partition>/<store>},
 * the state schema file of partition 0 (read with Spark's own {@code SchemaHelper}), and the kind
 * told by the shape of the state:
 *
 * <ul>
 *   <li>join store folders ({@code left-keyToNumValues}, ...): a stream-stream join;
 *   <li>a value of one {@code __dummy__} NULL column: dropDuplicates;
 *   <li>a value of one {@code expiresAtMicros} column: dropDuplicatesWithinWatermark;
 *   <li>a {@code groupState} struct in the value: (flat)MapGroupsWithState or
 *       applyInPandasWithState;
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
  /** Not an inference but what prevents one: Spark before 3.1 wrote no state schema file. */
  static final String NO_STATE_SCHEMA = "no state schema file";

  private static final Pattern VERSION_FILE =
      Pattern.compile("\\d+\\.(delta|snapshot|zip|changelog)");
  private static final Pattern JOIN_STORE =
      Pattern.compile("(left|right)-(keyToNumValues|keyWithIndexToValue)");
  /** Aggregation buffer attribute names of Spark's built-in aggregate functions. */
  private static final Pattern AGG_BUFFER = Pattern.compile(
      "count|sum|isEmpty|max|min|first|last|valueSet|avg|n|m2|m3|m4|xAvg|yAvg|ck|xMk|yMk"
      + "|MS\\[\\d+\\]|buf|every|some|bool_(and|or)|bit_(and|or|xor)|product|.*Buffer.*");

  /** The schema file of a store, in partition 0 (Spark's {@code PARTITION_ID_TO_CHECK_SCHEMA}). */
  static final String SCHEMA_FILE = "_metadata/schema";

  private OperatorInference() {}

  /** The operator in {@code opDir} described from its files. */
  static Operator infer(FileSystem fs, Path opDir, long id) throws IOException {
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
      if (!stores.isEmpty()) {
        name = "symmetricHashJoin";
        schemaFile = new Path(new Path(first, stores.get(0)), SCHEMA_FILE);
      } else if (defaultStore) {
        stores.add("default");
        schemaFile = new Path(first, SCHEMA_FILE);
        StateStoreColFamilySchema schema = readSchema(fs, schemaFile);
        if (schema != null) name = kindOf(schema.keySchema(), schema.valueSchema());
      }
      if (!name.equals("unknown")) inferred.add(FROM_SCHEMA);
      if (schemaFile != null && !fs.exists(schemaFile)) inferred.add(NO_STATE_SCHEMA);
    }
    if (stores.isEmpty()) stores.add("default");
    return new Operator(id, name, 0, partitions.size(), stores, OperatorProperties.NONE,
        List.copyOf(inferred));
  }

  /** Spark's operator name for a default store with these schemas, or {@code unknown}. */
  static String kindOf(StructType key, StructType value) {
    StructField[] fields = value.fields();
    if (fields.length == 1 && fields[0].name().equals("__dummy__")
        && fields[0].dataType() instanceof NullType) {
      return "dedupe";
    }
    if (fields.length == 1 && fields[0].name().equals("expiresAtMicros")) {
      return "dedupeWithinWatermark";
    }
    if (Arrays.stream(fields).anyMatch(f -> f.name().equals("groupState"))) {
      return "flatMapGroupsWithState";
    }
    Set<String> keyNames = Set.of(key.fieldNames());
    boolean buffers = fields.length > 0 && key.fields().length > 0
        && Arrays.stream(fields).allMatch(
            f -> keyNames.contains(f.name()) || AGG_BUFFER.matcher(f.name()).matches())
        && Arrays.stream(fields).anyMatch(f -> !keyNames.contains(f.name()));
    return buffers ? "stateStoreSave" : "unknown";
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

  /** The first column family of a v1/v2 schema file, or null when there is no such file. */
  private static StateStoreColFamilySchema readSchema(FileSystem fs, Path file)
      throws IOException {
    if (!fs.exists(file)) return null;
    try (FSDataInputStream in = fs.open(file)) {
      String version = in.readUTF();
      List<StateStoreColFamilySchema> schemas = CollectionConverters.asJava(
          SchemaHelper.SchemaReader$.MODULE$.createSchemaReader(version).read(in));
      return schemas.isEmpty() ? null : schemas.get(0);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
