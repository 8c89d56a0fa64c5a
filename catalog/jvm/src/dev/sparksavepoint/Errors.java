package dev.sparksavepoint;

import org.apache.spark.sql.AnalysisException;
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
    // Spark's USER_RAISED_EXCEPTION condition carries a message verbatim; a condition is needed
    // because some paths (table functions, pyspark's converter) format errors by condition.
    scala.collection.immutable.Map<String, String> parameters = Map$.MODULE$.<String, String>empty()
        .updated("errorMessage", "[" + errorClass + "] " + message);
    throw Errors.<RuntimeException>sneaky(
        new AnalysisException("USER_RAISED_EXCEPTION", parameters));
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

  // ---- writes ----

  /** An error raised inside a Spark task (data-dependent write checks): same message format. */
  public static RuntimeException rejected(String errorClass, String message) {
    return new IllegalArgumentException("[" + errorClass + "] " + message);
  }

  private static String where(String path, String uid, String state) {
    return "state " + uid + "." + state + " of checkpoint '" + path + "'";
  }

  public static RuntimeException queryRunning(String path, String uid, String state,
      String query) {
    return analysis(
        "SAVEPOINT_QUERY_RUNNING",
        "Cannot write " + where(path, uid, state) + ": streaming query " + query + " of this"
            + " session is running on it. Stop it (query.stop()), write, then restart it.");
  }

  public static RuntimeException writeUncommitted(String path, String uid, String state,
      long batchId) {
    return analysis(
        "SAVEPOINT_UNCOMMITTED_BATCH",
        "Cannot write " + where(path, uid, state) + ": batch " + batchId + " is planned"
            + " (offsets/" + batchId + ") but not committed (no commits/" + batchId + "): the"
            + " query is running or stopped mid-batch. Stop the query, or restart it until the"
            + " batch commits, then write again.");
  }

  public static RuntimeException writeOldBatch(String path, String uid, String state,
      long batchId, long last) {
    return analysis(
        "SAVEPOINT_WRITE_OLD_BATCH",
        "Cannot write " + where(path, uid, state) + " as of batch " + batchId + ": writes always"
            + " start from the last committed batch " + last + ". To go back to batch " + batchId
            + ", write INSERT OVERWRITE <table> SELECT * FROM <table> VERSION AS OF " + batchId
            + ".");
  }

  public static RuntimeException readOnlyState(String path, String uid, String state,
      String why) {
    return analysis(
        "SAVEPOINT_READ_ONLY_STATE",
        "Cannot write " + where(path, uid, state) + ": " + why);
  }

  public static RuntimeException columnMismatch(String path, String uid, String state,
      String problem, String expected) {
    return analysis(
        "SAVEPOINT_COLUMN_MISMATCH",
        "Cannot write " + where(path, uid, state) + ": " + problem + ". The table's columns are "
            + expected + " (partition_id is optional and recomputed). Give them by position, or"
            + " all by name.");
  }

  public static RuntimeException typeMismatch(String path, String uid, String state,
      String column, String expected, String given, String fix) {
    return analysis(
        "SAVEPOINT_TYPE_MISMATCH",
        "Cannot write " + where(path, uid, state) + ": column " + column + " is " + expected
            + " but the statement gives " + given + ". " + fix);
  }

  public static RuntimeException nullKey(String path, String uid, String state, String column) {
    return rejected(
        "SAVEPOINT_NULL_KEY",
        "Cannot write " + where(path, uid, state) + ": key column " + column + " is NULL in an"
            + " incoming row. State keys cannot be NULL: filter such rows out (WHERE " + column
            + " IS NOT NULL). Nothing was written.");
  }

  public static RuntimeException duplicateKey(String path, String uid, String state,
      String key) {
    return rejected(
        "SAVEPOINT_DUPLICATE_KEY",
        "Cannot write " + where(path, uid, state) + ": the statement gives key " + key
            + " more than once. Give each key at most once (e.g. aggregate or deduplicate the"
            + " rows first). Nothing was written.");
  }

  public static RuntimeException wrongPartition(String path, String uid, String state,
      String key, int expected, int actual) {
    return rejected(
        "SAVEPOINT_PARTITION_MISMATCH",
        "Internal error writing " + where(path, uid, state) + ": key " + key + " hashes to state"
            + " partition " + expected + " but reached task partition " + actual + ". Nothing"
            + " was written; please report this.");
  }

  public static RuntimeException concurrentWrite(String path, long batchId, String why) {
    return analysis(
        "SAVEPOINT_CONCURRENT_WRITE",
        "Cannot commit batch " + batchId + " of checkpoint '" + path + "': " + why + ". This"
            + " write changed nothing; run it again to apply it on top of the checkpoint's new"
            + " last batch.");
  }

  public static RuntimeException queryAlive(String path, String uid, String state,
      String activity) {
    return analysis(
        "SAVEPOINT_QUERY_ALIVE",
        "Cannot write " + where(path, uid, state) + ": its streaming query may still be"
            + " running (" + activity + "). Stop the query (query.stop(), or end its"
            + " application) before editing; if you know it is stopped, write with the option"
            + " force=true (SET " + QueryActivity.FORCE_CONF + "=true, or --force).");
  }

  public static RuntimeException interruptedEdit(String path, long batchId, String claims) {
    return analysis(
        "SAVEPOINT_INTERRUPTED_EDIT",
        "Batch " + batchId + " of checkpoint '" + path + "' was claimed by an edit that has not"
            + " committed (" + claims + "). If that writer has stopped, restart the streaming"
            + " query once (it completes batch " + batchId + " without the edit) or run"
            + " `spark-savepoint recover " + path + " --force`; then edit again.");
  }

  public static RuntimeException writeFailed(String path, String what, Exception cause) {
    return analysis(
        "SAVEPOINT_WRITE_FAILED",
        "Could not " + what + " in checkpoint '" + path + "': " + cause.getMessage());
  }

  // ---- empty savepoints ----

  public static RuntimeException targetNotEmpty(String target, String template) {
    return analysis(
        "SAVEPOINT_TARGET_NOT_EMPTY",
        "Cannot create an empty savepoint like '" + template + "' in '" + target + "': the"
            + " target exists and is not an empty folder. Choose a new folder (it is created)"
            + " or empty this one; nothing was written.");
  }

  public static RuntimeException templateUnsupported(String template, String target,
      String why) {
    return analysis(
        "SAVEPOINT_TEMPLATE_UNSUPPORTED",
        "Cannot create an empty savepoint in '" + target + "' like '" + template + "': " + why
            + " Nothing was written.");
  }
}
