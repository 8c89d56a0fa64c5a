package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * transformWithState state that a pre-release build of Spark 4.0.0 wrote (Apache Spark's
 * {@code checkpoint-version-4.0.0-tws-*} goldens, December 2024). Its operator metadata v2 names
 * one schema file under {@code stateSchemaFilePath}, which Spark 4.0 and later read as no schema
 * file at all (they write a list, {@code stateSchemaFilePaths}), and its v3 schema file has no
 * schema ids, so Spark's v3 schema reader runs past its end. No Spark release reads that state:
 * Spark 4.3's own reader fails on it with or without the file at hand.
 */
final class PreReleaseTws {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PreReleaseTws() {}

  /**
   * The schema file that the operator metadata v2 entry for {@code batchId} (the latest at or
   * before it) of {@code opDir} names under the pre-release key, or null when it names none so.
   */
  static String schemaPath(FileSystem fs, Path opDir, long batchId) throws IOException {
    Path dir = new Path(opDir, "_metadata/v2");
    if (!fs.exists(dir)) return null;
    long entry = -1;
    for (FileStatus status : fs.listStatus(dir)) {
      String name = status.getPath().getName();
      if (name.matches("\\d+") && Long.parseLong(name) <= batchId) {
        entry = Math.max(entry, Long.parseLong(name));
      }
    }
    if (entry < 0) return null;
    String text =
        new String(
            CheckpointFiles.readAsSpark(fs, new Path(dir, Long.toString(entry)), () -> {}),
            StandardCharsets.UTF_8);
    String json = text.substring(text.indexOf('\n') + 1);
    for (JsonNode store : JSON.readTree(json).path("stateStoreInfo")) {
      if (store.has("stateSchemaFilePath") && !store.has("stateSchemaFilePaths")) {
        return store.get("stateSchemaFilePath").asText();
      }
    }
    return null;
  }
}
