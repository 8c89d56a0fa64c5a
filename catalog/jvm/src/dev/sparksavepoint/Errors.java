package dev.sparksavepoint;

import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import scala.Option;
import scala.collection.immutable.Map$;

/**
 * Every error a user can act on, in one place. Each message starts with a stable error class in
 * brackets (SAVEPOINT_*), names the checkpoint and the thing asked for, and says what exists
 * instead or what to do.
 */
public final class Errors {
  private Errors() {}

  /**
   * Throws an AnalysisException carrying our own message (Spark's analyzer lets it through
   * unchanged). Declared to return RuntimeException so callers write {@code throw Errors.x(..)}
   * although Java sees AnalysisException as checked.
   */
  public static RuntimeException analysis(String errorClass, String message) {
    throw Errors.<RuntimeException>sneaky(new AnalysisException(
        "[" + errorClass + "] " + message,
        Option.empty(),
        Option.empty(),
        Option.empty(),
        Option.empty(),
        Map$.MODULE$.empty(),
        new QueryContext[0]));
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T sneaky(Throwable error) throws T {
    throw (T) error;
  }

  public static RuntimeException pathNotSet(String catalog) {
    return analysis(
        "SAVEPOINT_PATH_NOT_SET",
        "Catalog '" + catalog + "' has no checkpoint folder: set spark.sql.catalog." + catalog
            + ".path to a streaming query's checkpointLocation (or a savepoint folder).");
  }

  public static RuntimeException noSuchFolder(String path) {
    return analysis(
        "SAVEPOINT_NO_SUCH_CHECKPOINT",
        "Checkpoint folder '" + path + "' does not exist. Point the catalog's path at a streaming"
            + " query's checkpointLocation.");
  }

  public static RuntimeException notACheckpoint(String path, String found) {
    return analysis(
        "SAVEPOINT_NOT_A_CHECKPOINT",
        "'" + path + "' is not a streaming checkpoint: it has no offsets/ and commits/ logs (it"
            + " holds: " + found + "). A checkpoint folder holds metadata, offsets/, commits/ and"
            + " state/.");
  }

  public static RuntimeException noCommittedBatch(String path) {
    return analysis(
        "SAVEPOINT_NO_COMMITTED_BATCH",
        "Checkpoint '" + path + "' has no committed batch yet: run the streaming query until"
            + " it completes its first micro-batch.");
  }

  public static RuntimeException noSuchOperator(String path, String uid, String known) {
    return analysis(
        "SAVEPOINT_NO_SUCH_OPERATOR",
        "No stateful operator '" + uid + "' in checkpoint '" + path + "'. Operators: " + known
            + ".");
  }

  public static RuntimeException noSuchState(String path, String uid, String state, String known) {
    return analysis(
        "SAVEPOINT_NO_SUCH_STATE",
        "No state '" + state + "' in operator " + uid + " of checkpoint '" + path + "'. States: "
            + known + ".");
  }

  public static RuntimeException noSuchBatch(String path, long batchId, String committed) {
    return analysis(
        "SAVEPOINT_NO_SUCH_BATCH",
        "Batch " + batchId + " does not exist in checkpoint '" + path + "'. Committed batches: "
            + committed + ".");
  }

  public static RuntimeException uncommittedBatch(String path, long batchId, String committed) {
    return analysis(
        "SAVEPOINT_UNCOMMITTED_BATCH",
        "Batch " + batchId + " of checkpoint '" + path + "' is not committed (offsets/" + batchId
            + " exists, commits/" + batchId + " does not): the query stopped mid-batch or is"
            + " still running. Committed batches: " + committed + ".");
  }

  public static RuntimeException badVersion(String path, String version) {
    return analysis(
        "SAVEPOINT_BAD_VERSION",
        "VERSION AS OF '" + version + "' is not a batch id of checkpoint '" + path + "': use a"
            + " whole number such as VERSION AS OF 3.");
  }

  public static RuntimeException noBatchAtTime(String path, long millis, String first) {
    return analysis(
        "SAVEPOINT_NO_BATCH_AT_TIME",
        "No batch of checkpoint '" + path + "' was committed at or before "
            + java.time.Instant.ofEpochMilli(millis) + ". The first commit was at " + first
            + ".");
  }

  public static UnsupportedOperationException unsupported(String what, String catalog) {
    return new UnsupportedOperationException(
        "[SAVEPOINT_UNSUPPORTED] " + what + " is not supported by catalog: " + catalog);
  }

  public static RuntimeException io(String path, Exception cause) {
    return analysis(
        "SAVEPOINT_IO",
        "Could not read checkpoint '" + path + "': " + cause.getMessage());
  }
}
