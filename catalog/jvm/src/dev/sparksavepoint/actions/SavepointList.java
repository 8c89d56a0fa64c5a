package dev.sparksavepoint.actions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.SavepointManifest;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The savepoints under a folder: the folder itself when it is one, else its subfolders that
 * are (one level down), each summarized from its manifest. Reads manifests only.
 */
public final class SavepointList {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SavepointList() {}

  /**
   * One JSON object per savepoint (path, query_id, batch_id, taken_at, committed_at, source,
   * operators, rows, bytes, writable), sorted by path; as a JSON array.
   */
  public static String run(String dir, Configuration conf) {
    Path root = new Path(dir);
    ArrayNode out = JSON.createArrayNode();
    try {
      FileSystem fs = root.getFileSystem(conf);
      if (!fs.exists(root)) throw Errors.noSuchSavepointFolder(dir, true);
      List<Path> candidates = new ArrayList<>();
      if (fs.exists(SavepointManifest.file(root))) {
        candidates.add(root);
      } else {
        for (FileStatus s : fs.listStatus(root)) {
          if (s.isDirectory()) candidates.add(s.getPath());
        }
      }
      candidates.sort(null);
      for (Path p : candidates) {
        JsonNode m = SavepointManifest.read(fs, p);
        if (m != null) out.add(summary(fs.makeQualified(p).toString(), m));
      }
    } catch (IOException e) {
      throw Errors.io(dir, e);
    }
    return out.toString();
  }

  private static ObjectNode summary(String path, JsonNode m) {
    ObjectNode s = JSON.createObjectNode();
    s.put("path", path);
    s.put("query_id", m.path("source").path("query_id").asText());
    s.put("batch_id", m.path("batch_id").asLong());
    s.put("taken_at", m.path("taken_at").asText());
    s.put("committed_at", m.path("source").path("committed_at").asText());
    s.put("source", m.path("source").path("checkpoint").asText());
    List<String> uids = new ArrayList<>();
    for (JsonNode op : m.path("operators")) {
      String user = op.path("user_uid").asText(null);
      uids.add(
          op.path("uid").asText()
              + (user == null || op.path("user_uid").isNull() ? "" : " (" + user + ")"));
    }
    s.put("operators", String.join(", ", uids));
    s.put("provider", m.path("provider").asText());
    s.put("partitions", m.path("partitions").asInt());
    if (m.path("rows").isNumber()) s.put("rows", m.path("rows").asLong());
    else s.putNull("rows"); // not counted
    s.put("bytes", m.path("bytes").asLong());
    s.put("writable", m.path("writable").asBoolean());
    return s;
  }
}
