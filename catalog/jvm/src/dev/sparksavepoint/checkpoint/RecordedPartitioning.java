package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The columns by which a query that runs without the strict distribution ({@link KeyPlacement})
 * placed each operator's keys, as the query recorded them when it ran with spark-savepoint's
 * listener ({@code sql.ValueNamesListener}, from {@code upgrade.QueryPartitioning}):
 * {@code _savepoint/partitioning.json}, operator id to column names, e.g.
 * {@code {"0": ["user"]}}. Writes use them when not told otherwise, after checking them
 * against every stored key. Spark never reads {@code _savepoint/}.
 */
public final class RecordedPartitioning {
  /** The file, relative to the checkpoint root. */
  public static final String FILE = "_savepoint/partitioning.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private RecordedPartitioning() {}

  /**
   * Operator id to recorded columns; empty when nothing was recorded.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when unreadable
   */
  public static Map<Long, List<String>> read(Checkpoint ckpt) {
    try {
      return read(ckpt.fileSystem(), ckpt.root());
    } catch (IOException | RuntimeException e) {
      throw Errors.corruptFile(
          ckpt.location(),
          FILE,
          "the checkpoint",
          e,
          "Remove the file" + " (writes then need partitioned_by) or run the query again.");
    }
  }

  static Map<Long, List<String>> read(FileSystem fs, Path root) throws IOException {
    Map<Long, List<String>> recorded = new TreeMap<>();
    for (Map.Entry<String, JsonNode> field :
        CheckpointFiles.jsonFields(fs, new Path(root, FILE)).entrySet()) {
      List<String> names = new ArrayList<>();
      if (!field.getValue().isArray())
        throw new IOException("operator " + field.getKey() + " has no list of column names");
      for (JsonNode name : field.getValue()) names.add(name.asText());
      recorded.put(Long.parseLong(field.getKey()), names);
    }
    return recorded;
  }

  /**
   * Records {@code columns} for the checkpoint at {@code root}, unless that is recorded already.
   *
   * @return whether the file was written
   */
  public static boolean record(Path root, Map<Long, List<String>> columns, Configuration conf)
      throws IOException {
    FileSystem fs = root.getFileSystem(conf);
    Map<Long, List<String>> sorted = new TreeMap<>(columns);
    try {
      if (read(fs, root).equals(sorted)) return false;
    } catch (IOException | RuntimeException e) {
      // unreadable: replaced below
    }
    ObjectNode node = JSON.createObjectNode();
    sorted.forEach((id, names) -> names.forEach(node.putArray(Long.toString(id))::add));
    CheckpointFiles.replace(new Path(root, FILE), CheckpointFiles.prettyJson(node), conf);
    return true;
  }

  /** Records what {@code from} recorded in its copy at {@code root}, for the kept operators. */
  public static void copy(Checkpoint from, Path root, Map<Long, Long> ids, Configuration conf)
      throws IOException {
    Map<Long, List<String>> kept = new TreeMap<>();
    read(from)
        .forEach(
            (id, names) -> {
              if (ids.containsKey(id)) kept.put(ids.get(id), names);
            });
    if (!kept.isEmpty()) record(root, kept, conf);
  }
}
