package dev.sparksavepoint.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The {@code metadata} file of a checkpoint folder an action of the tool (savepoint, restore,
 * empty savepoint, upgrade) is still writing: what the action is and which process runs it, in
 * place of Spark's {@code {"id": ...}}. Spark cannot read it, so no query starts on a folder
 * that is not whole (it would start from scratch, with no state): the action replaces it with
 * the real metadata just before its commit; a copy in {@link Checkpoint#CLAIM_FILE} stays. The
 * tool's reads refuse a folder with a claim and no committed batch by name, and {@code recover}
 * removes what is in it once its writer has ended.
 *
 * <pre>
 *   {"savepointClaim":"restore savepoint '/sp' into '/ckpt'","writer":"pid 7 on host h, ...",
 *    "host":"h","pid":7,"processStartedMs":...}
 * </pre>
 */
public final class FolderClaim {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String action;
  private final WriterProcess writer;

  private FolderClaim(String action, WriterProcess writer) {
    this.action = action;
    this.writer = writer;
  }

  /** The claim of this process for {@code action} (e.g. "restore savepoint '/sp' into '/t'"). */
  public static byte[] of(String action) {
    WriterProcess self = WriterProcess.current();
    ObjectNode json = JSON.createObjectNode();
    json.put(Checkpoint.CLAIM_FIELD, action).put("writer", self.describe());
    self.writeTo(json);
    try {
      return (JSON.writeValueAsString(json) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The claim of an unfinished folder ({@link Checkpoint#unfinishedClaim}); or null. */
  static FolderClaim read(FileSystem fs, Path root) {
    Map<String, JsonNode> fields = Checkpoint.unfinishedClaim(fs, root);
    if (fields == null) return null;
    return new FolderClaim(
        fields.get(Checkpoint.CLAIM_FIELD).asText(),
        WriterProcess.readFrom(JSON.valueToTree(fields)));
  }

  /**
   * Removes what an unfinished action left in {@code root} (everything in it: the action
   * claimed an empty folder) when its writer is provably gone or {@code force}; returns what
   * it did, one line, or null when the folder carries no claim.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_UNFINISHED_CHECKPOINT when the
   *     writer may still run
   */
  public static String removeAbandoned(FileSystem fs, Path root, String location, boolean force)
      throws IOException {
    FolderClaim claim = read(fs, root);
    if (claim == null) return null;
    if (!force && !claim.writer.isGone()) {
      throw Errors.unfinishedCheckpoint(location, claim.action, claim.writer.describe());
    }
    for (FileStatus child : fs.listStatus(root)) fs.delete(child.getPath(), true);
    return "removed what the unfinished "
        + claim.action
        + " ("
        + claim.writer.describe()
        + (force ? "" : ", ended")
        + ") wrote: the folder is empty, run it again";
  }
}
