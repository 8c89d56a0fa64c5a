package dev.sparksavepoint.commit;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import java.io.FileNotFoundException;
import java.io.IOException;
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
 *   {"nextBatchWatermarkMs":0,"savepointEdit":"6f1c...-...."}
 * </pre>
 */
public final class EditToken {
  public static final String FIELD = "savepointEdit";

  private EditToken() {}

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
    byte[] entry;
    try {
      entry = new CheckpointLog(fs, root, CheckpointLog.COMMITS).bytes(batch);
    } catch (FileNotFoundException e) {
      return null;
    }
    return CheckpointLog.parseEntry(entry).path(FIELD).asText("");
  }
}
