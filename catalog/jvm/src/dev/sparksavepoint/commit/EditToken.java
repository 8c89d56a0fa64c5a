package dev.sparksavepoint.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The mark an edit leaves in the commit entry it writes: field {@value #FIELD} of commits/b's
 * JSON line holds the id of the edit's claim ({@link EditClaim#id}). Spark reads commit entries
 * with json4s, which skips fields it does not know (every release), and a streaming query writes
 * its own entries without it. So commits/b proves which edit wrote it: a batch the query
 * committed after an edit was killed is never taken for the edit's ({@link StagedImages}).
 *
 * <pre>
 *   v1
 *   {"nextBatchWatermarkMs":0,"savepointEdit":"6f1c...-....",
 *    "savepointEditRows":{"written":3,"removed":1}}
 * </pre>
 */
public final class EditToken {
  public static final String FIELD = "savepointEdit";

  private EditToken() {}

  /** The field of the commit entry with the edit's entry counts: {@code written}, {@code removed}. */
  public static final String ROWS_FIELD = "savepointEditRows";

  /**
   * {@code commit} with the entries the edit's partition commits wrote and removed ({@code
   * removed} null for whole new images, whose replaced entries are not counted).
   */
  static byte[] withRows(byte[] commit, List<PartitionCommit> commits, boolean wholeImages)
      throws IOException {
    ObjectNode rows = JsonNodeFactory.instance.objectNode();
    rows.put("written", commits.stream().mapToLong(PartitionCommit::upserted).sum());
    if (wholeImages) {
      rows.putNull("removed");
    } else {
      rows.put("removed", commits.stream().mapToLong(PartitionCommit::removed).sum());
    }
    return CheckpointLog.withMetadataField(commit, ROWS_FIELD, rows);
  }

  /** {@code commit} (a commit entry) marked as written by edit {@code editId}. */
  static byte[] stamp(byte[] commit, String editId) throws IOException {
    return CheckpointLog.withMetadataField(commit, FIELD, TextNode.valueOf(editId));
  }

  /**
   * The id of the edit that wrote commits/{@code batch} of the checkpoint at {@code root}:
   * {@code ""} when a query (or a version of this tool without marks) wrote it, null when the
   * batch is not committed.
   *
   * @throws IOException when the entry cannot be read or parsed
   */
  public static String of(FileSystem fs, Path root, long batch) throws IOException {
    JsonNode commit = commitMetadata(fs, root, batch);
    return commit == null ? null : commit.path(FIELD).asText("");
  }

  /** The JSON of commits/{@code batch}, null when the batch is not committed. */
  public static JsonNode commitMetadata(FileSystem fs, Path root, long batch) throws IOException {
    byte[] entry;
    try {
      entry = new CheckpointLog(fs, root, CheckpointLog.COMMITS).bytes(batch);
    } catch (FileNotFoundException e) {
      return null;
    }
    return CheckpointLog.parseEntry(entry);
  }
}
