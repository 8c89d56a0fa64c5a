package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A savepoint's manifest, {@code _savepoint.json} at its root: what it was taken from (source
 * checkpoint, query id, batch, commit time, Spark version), its operators with their uids, kinds,
 * schemas, rows and bytes, and every file with its size and SHA-256. Written last when a
 * savepoint is taken: a folder is a savepoint exactly when it has one. Spark ignores the file.
 *
 * <p>Example: {@code SavepointManifest.read(fs, root).path("batch_id").asLong()}
 */
public final class SavepointManifest {
  /** The manifest's file name at the savepoint's root. */
  public static final String FILE = "_savepoint.json";

  /** The manifest format this version writes. */
  public static final int FORMAT = 1;

  private static final ObjectMapper JSON = new ObjectMapper();

  private SavepointManifest() {}

  public static Path file(Path root) {
    return new Path(root, FILE);
  }

  /** The manifest of the savepoint at {@code root}, or null when {@code root} is no savepoint. */
  public static JsonNode read(FileSystem fs, Path root) throws IOException {
    try {
      return JSON.readTree(CheckpointFiles.readAll(fs, file(root)));
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  /** True when the savepoint was taken writable (edits through the catalog allowed). */
  public static boolean writable(JsonNode manifest) {
    return manifest != null && manifest.path("writable").asBoolean(false);
  }
}
