package dev.sparksavepoint.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The staging folders of edit transactions and full-image overwrites ({@link StagedImages}),
 * {@code <checkpoint>/_savepoint-tx-<id>}: each
 * records its writer process ({@value #OWNER}) when it is made, so that a later transaction can
 * remove the folder a killed driver left behind ({@link #removeAbandoned}: only when it can
 * prove that writer gone, as for claims). Spark never reads these folders.
 */
public final class StagingFolders {
  /** The prefix of a staging folder's name. */
  public static final String PREFIX = "_savepoint-tx-";

  static final String OWNER = "writer.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  private StagingFolders() {}

  /** Makes the staging folder {@code folder}, recording this process as its writer. */
  public static void create(FileSystem fs, Path folder) throws IOException {
    ObjectNode json = JSON.createObjectNode();
    WriterProcess.current().writeTo(json);
    try (var out = fs.create(new Path(folder, OWNER), false)) {
      out.write(JSON.writeValueAsString(json).getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * Removes the staging folders under checkpoint {@code root} whose writer is provably gone,
   * after completing the edit of one that staged full images when the edit's own commit is
   * there, or discarding its images when not ({@link StagedImages#complete}); returns what it
   * did, a line per folder.
   */
  public static List<String> removeAbandoned(FileSystem fs, Path root) throws IOException {
    List<String> removed = new ArrayList<>();
    for (FileStatus status : fs.listStatus(root)) {
      Path folder = status.getPath();
      if (!status.isDirectory() || !folder.getName().startsWith(PREFIX)) continue;
      JsonNode owner;
      try {
        owner = JSON.readTree(CheckpointFiles.readAll(fs, new Path(folder, OWNER)));
      } catch (FileNotFoundException e) {
        continue; // being made, or removed meanwhile
      }
      if (WriterProcess.readFrom(owner).isGone()) {
        removed.add(StagedImages.complete(fs, root, folder));
      }
    }
    return removed;
  }
}
