package dev.sparksavepoint.errors;

import dev.sparksavepoint.adapters.AnalysisExceptionBase;
import dev.sparksavepoint.adapters.Conditions;
import dev.sparksavepoint.conf.Settings;
import org.apache.spark.sql.AnalysisException;
import scala.collection.immutable.Map$;

/**
 * Every error a user can act on, in one place. Each message is one line that starts with a
 * stable error class in brackets (SAVEPOINT_*), names the checkpoint and the thing asked for,
 * and says what exists instead or what to do.
 *
 * <p>Driver-side errors are Spark {@link AnalysisException}s whose condition
 * ({@code getCondition()}, {@code getErrorClass()}) is the SAVEPOINT_* class itself, built with
 * Spark's constructor for error classes defined outside Spark's own error-conditions file.
 * Data-dependent refusals found inside a write task ({@link #rejected}) travel to the driver
 * as a commit message ({@code write.RefusedWrites}) and are thrown there the same way, so they
 * never reach the user as a failed Spark job. This package depends only on {@code conf}: every
 * layer reports through it.
 *
 * <p>Every class is registered in the error registry ({@link ErrorConditions}, the jar's copy of
 * {@code catalog/error-conditions.json}), which gives its SQLSTATE; a class it lacks throws an
 * {@code IllegalStateException} instead ({@code ErrorsTest} raises every class of this file).
 */
public final class Errors {
  private Errors() {}

  /**
   * Throws an AnalysisException whose condition is {@code errorClass} and whose message is
   * {@code [errorClass] message}, verbatim (Spark 4.3's constructor for error classes it does
   * not define). Declared to return RuntimeException so callers write
   * {@code throw Errors.x(..)} although Java sees AnalysisException as checked.
   */
  public static RuntimeException analysis(String errorClass, String message) {
    throw Errors.<RuntimeException>sneaky(exception(errorClass, message));
  }

  /**
   * Throws {@code error} as it is: also a checked {@code AnalysisException}, which Spark's
   * Scala code and {@link #analysis} throw unchecked ({@code throw Errors.rethrow(e)}).
   */
  public static RuntimeException rethrow(Throwable error) {
    throw Errors.<RuntimeException>sneaky(error);
  }

  /** The AnalysisException of {@link #analysis}, not thrown. */
  public static AnalysisException exception(String errorClass, String message) {
    String line = oneLine(message);
    scala.collection.immutable.Map<String, String> parameters =
        Map$.MODULE$.<String, String>empty().updated("message", line);
    return new SavepointException(
        errorClass,
        ErrorConditions.sqlState(errorClass, line),
        parameters,
        "[" + errorClass + "] " + line);
  }

  /**
   * Our AnalysisException. It keeps no query position: Spark's analyzer adds one to errors
   * raised while it resolves a table function ({@code withPosition}), which appends
   * "; line 1 pos 14" to the message and gives it a query context, and PySpark formats errors
   * with a query context by looking their class up in Spark's own error file, which fails for
   * SAVEPOINT_* classes.
   */
  public static final class SavepointException extends AnalysisExceptionBase {
    SavepointException(
        String errorClass,
        String sqlState,
        scala.collection.immutable.Map<String, String> parameters,
        String message) {
      super(errorClass, sqlState, parameters, message);
    }

    @Override
    public AnalysisException withPosition(org.apache.spark.sql.catalyst.trees.Origin origin) {
      return this;
    }
  }

  /** A message on one line: other exceptions' multi-line text is joined. */
  public static String oneLine(String text) {
    return text == null ? "" : text.strip().replaceAll("\\s*\\R\\s*", " ");
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T sneaky(Throwable error) throws T {
    throw (T) error;
  }

  /**
   * A refusal found inside a write task (data-dependent checks). The task's writer catches it
   * ({@code write.RefusedWrites}), and the driver throws it as {@link #analysis}.
   */
  public static final class Refusal extends IllegalArgumentException {
    private final String errorClass;
    private final String detail;

    Refusal(String errorClass, String detail) {
      super("[" + errorClass + "] " + detail);
      ErrorConditions.sqlState(errorClass, detail);
      this.errorClass = errorClass;
      this.detail = detail;
    }

    public String errorClass() {
      return errorClass;
    }

    public String detail() {
      return detail;
    }

    /** Throws this refusal as the driver-side AnalysisException of {@link #analysis}. */
    public RuntimeException raise() {
      return analysis(errorClass, detail);
    }
  }

  /** True for an error of ours (a SAVEPOINT_* class), to pass on as it is. */
  public static boolean isSavepointError(Throwable error) {
    return error instanceof org.apache.spark.SparkThrowable t
        && Conditions.of(t) != null
        && Conditions.of(t).startsWith("SAVEPOINT_");
  }

  /** The first line of an exception's message, with its class when it has no message. */
  public static String firstLine(Throwable error) {
    String text = error.getMessage();
    if (text == null || text.isBlank()) return error.getClass().getSimpleName();
    return text.strip().lines().findFirst().orElse("");
  }

  public static RuntimeException pathNotSet(String catalog) {
    return analysis(
        "SAVEPOINT_PATH_NOT_SET",
        "Catalog '"
            + catalog
            + "' has no checkpoint folder: set spark.sql.catalog."
            + catalog
            + ".path to a streaming query's checkpointLocation (or a savepoint folder).");
  }

  public static RuntimeException noSuchFolder(String path) {
    return analysis(
        "SAVEPOINT_NO_SUCH_CHECKPOINT",
        "Checkpoint folder '"
            + path
            + "' does not exist. Give the folder of a streaming query's checkpointLocation (or"
            + " of a savepoint): the catalog's path, the command's argument.");
  }

  /** {@code savepoint list} or {@code dispose} of a folder that does not exist. */
  public static RuntimeException noSuchSavepointFolder(String path, boolean listing) {
    return analysis(
        "SAVEPOINT_NO_SUCH_CHECKPOINT",
        listing
            ? "Savepoint folder '"
                + path
                + "' does not exist: list takes the folder that holds savepoints (each taken"
                + " into a folder of its own below it)."
            : "Savepoint '"
                + path
                + "' does not exist: there is nothing to dispose of. `spark-savepoint savepoint"
                + " list <its parent folder>` shows the savepoints there.");
  }

  /** A file given where a checkpoint folder is expected. */
  public static RuntimeException fileNotFolder(String path) {
    return analysis(
        "SAVEPOINT_NOT_A_CHECKPOINT",
        "'"
            + path
            + "' is a file, not a checkpoint folder: give the folder the query's"
            + " checkpointLocation names (it holds metadata, offsets/, commits/ and state/).");
  }

  public static RuntimeException notACheckpoint(String path, String found) {
    return analysis(
        "SAVEPOINT_NOT_A_CHECKPOINT",
        "'"
            + path
            + "' is not a streaming checkpoint: it has no offsets/ and commits/ logs (it"
            + " holds: "
            + found
            + "). A checkpoint folder holds metadata, offsets/, commits/ and"
            + " state/.");
  }

  /**
   * A checkpoint with an offsets log and no commits log: Spark 2.0 and 2.1 kept none (2.2 added
   * it); {@code planned} describes the batches offsets/ holds, {@code last} the last of them.
   */
  public static RuntimeException noCommitLog(String path, String planned, long last) {
    String rerun =
        last > 0
            ? "runs batch "
                + last
                + ", the last one in offsets/, again on the"
                + " state of batch "
                + (last - 1)
            : "runs batch " + last + " again";
    return analysis(
        "SAVEPOINT_NO_COMMIT_LOG",
        "Checkpoint '"
            + path
            + "' has an offsets/ log (batches "
            + planned
            + ") and no commits/"
            + " log: Spark 2.0 and 2.1 kept none (Spark 2.2 added it), and this tool knows which"
            + " batches committed from commits/ only. Spark 2.2 and later restart it as it is: it"
            + " "
            + rerun
            + ". Restart the query once on Spark 3.0 or later, which writes"
            + " commits/ (and the state schema files Spark before 3.0 did not), then open the"
            + " checkpoint again.");
  }

  /**
   * State with no schema file ({@code file}): Spark before 3.1 recorded none; {@code writer} is
   * the release the files tell ({@code checkpoint.WriterVersion}).
   */
  public static RuntimeException noStateSchema(
      String path, String table, String file, String writer, boolean joinFormat1) {
    String refused =
        table.startsWith("join_")
            ? (joinFormat1
                ? " (unless the join is an outer join: Spark 3.0 and later refuse its"
                    + " join state format 1 on restart, SPARK-26154, so rebuild that state from the"
                    + " query's input)"
                : "")
            : " (unless it keeps a sum of decimals: Spark 3.1 and later refuse that old buffer on"
                + " restart, SPARK-28067, so rebuild that state from the query's input)";
    return analysis(
        "SAVEPOINT_NO_STATE_SCHEMA",
        "Cannot read or write "
            + table
            + " of checkpoint '"
            + path
            + "': its state has no"
            + " schema file ("
            + file
            + "). Spark "
            + writer
            + " wrote the checkpoint (its"
            + " offset-log settings and commit entries tell), and Spark before 3.1 recorded no"
            + " state schema; Spark's state reader needs one to decode the rows. Nothing is"
            + " damaged: restart the query once on Spark 3.1 or later, which writes the schema"
            + " file on its first batch, then open the checkpoint again"
            + refused
            + ".");
  }

  /**
   * State in a format Spark itself refuses to read or restart; {@code why} names the format,
   * what Spark does with it and what to do, as one sentence or more.
   */
  public static RuntimeException refusedBySpark(String path, String table, String why) {
    return analysis(
        "SAVEPOINT_REFUSED_BY_SPARK",
        "Cannot read or write " + table + " of checkpoint '" + path + "': " + why);
  }

  public static RuntimeException noCommittedBatch(String path) {
    return analysis(
        "SAVEPOINT_NO_COMMITTED_BATCH",
        "Checkpoint '"
            + path
            + "' has no committed batch yet: run the streaming query until"
            + " it completes its first micro-batch.");
  }

  public static RuntimeException noSuchOperator(String path, String uid, String known) {
    return analysis(
        "SAVEPOINT_NO_SUCH_OPERATOR",
        "No stateful operator '"
            + uid
            + "' in checkpoint '"
            + path
            + "'. Operators: "
            + known
            + ".");
  }

  public static RuntimeException noSuchState(String path, String uid, String state, String known) {
    return analysis(
        "SAVEPOINT_NO_SUCH_STATE",
        "No state '"
            + state
            + "' in operator "
            + uid
            + " of checkpoint '"
            + path
            + "'. States: "
            + known
            + ".");
  }

  public static RuntimeException noSuchBatch(String path, long batchId, String committed) {
    return analysis(
        "SAVEPOINT_NO_SUCH_BATCH",
        "Batch "
            + batchId
            + " does not exist in checkpoint '"
            + path
            + "'. Committed batches: "
            + committed
            + ".");
  }

  public static RuntimeException uncommittedBatch(String path, long batchId, String committed) {
    return analysis(
        "SAVEPOINT_UNCOMMITTED_BATCH",
        "Batch "
            + batchId
            + " of checkpoint '"
            + path
            + "' is not committed (offsets/"
            + batchId
            + " exists, commits/"
            + batchId
            + " does not): the query stopped mid-batch or is"
            + " still running. Committed batches: "
            + committed
            + ".");
  }

  public static RuntimeException badVersion(String path, String table, String version) {
    return analysis(
        "SAVEPOINT_BAD_VERSION",
        "VERSION AS OF '"
            + version
            + "' of table "
            + table
            + " is not a batch id of checkpoint '"
            + path
            + "': use a whole number such as VERSION AS OF 3.");
  }

  public static RuntimeException noBatchAtTime(String path, long millis, String first) {
    return analysis(
        "SAVEPOINT_NO_BATCH_AT_TIME",
        "No batch of checkpoint '"
            + path
            + "' was committed at or before "
            + java.time.Instant.ofEpochMilli(millis)
            + ". The first commit was at "
            + first
            + ".");
  }

  /** DDL and other statements a catalog of state tables cannot do. */
  public static RuntimeException unsupported(String what, String catalog) {
    return analysis(
        "SAVEPOINT_UNSUPPORTED",
        what
            + " is not supported by catalog "
            + catalog
            + ": its namespaces and tables are the"
            + " stateful operators and states of a streaming query's checkpoint, defined by the"
            + " query. Read them with SELECT, edit state with INSERT, INSERT OVERWRITE or"
            + " DELETE.");
  }

  /**
   * A checkpoint file that exists but cannot be parsed (truncated, garbled): names the file
   * and the batch, and says what can still be done.
   */
  public static RuntimeException corruptFile(
      String path, String file, String batch, Throwable cause, String remedy) {
    return analysis(
        "SAVEPOINT_CORRUPT_FILE",
        "File "
            + file
            + " of checkpoint '"
            + path
            + "' is damaged ("
            + firstLine(cause)
            + "), so "
            + batch
            + " cannot be read or written. "
            + remedy);
  }

  private static final java.util.regex.Pattern NEWER_LOG =
      java.util.regex.Pattern.compile(
          "Failed to read log file (\\S+?)\\.? \\[INVALID_LOG_VERSION[^]]*\\].*?"
              + "maximum supported log version is (v\\d+), but encountered (v\\d+)");

  /**
   * SAVEPOINT_SPARK_VERSION when {@code cause} (or a cause of it) is Spark's refusal of a log
   * file that a newer Spark wrote ({@code INVALID_LOG_VERSION}), naming the file; null otherwise.
   */
  public static RuntimeException newerLog(String path, Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      java.util.regex.Matcher m = NEWER_LOG.matcher(oneLine(t.getMessage()));
      if (m.find()) {
        String file = m.group(1);
        String folder = new org.apache.hadoop.fs.Path(path).getName() + "/";
        int at = file.indexOf(folder);
        String name = at < 0 ? file : file.substring(at + folder.length());
        return analysis(
            "SAVEPOINT_SPARK_VERSION",
            "File "
                + name
                + " of checkpoint '"
                + path
                + "' was written by a newer Spark than this one (log version "
                + m.group(3)
                + "; Spark "
                + org.apache.spark.package$.MODULE$.SPARK_VERSION()
                + " reads up to "
                + m.group(2)
                + "): read the checkpoint with the Spark that wrote it, running this tool on it.");
      }
    }
    return null;
  }

  /** A partition folder of an operator's state is missing. */
  public static RuntimeException missingPartition(
      String path, String table, long operatorId, int partition, int partitions, long batchId) {
    return analysis(
        "SAVEPOINT_CORRUPT_FILE",
        "Folder state/"
            + operatorId
            + "/"
            + partition
            + " of checkpoint '"
            + path
            + "' is missing ("
            + table
            + " has "
            + partitions
            + " partitions, each a folder), so batch "
            + batchId
            + " cannot be read or written, and a restarted query fails on it too. Restore the"
            + " folder from a copy of the checkpoint; `spark-savepoint doctor "
            + path
            + "` lists everything that is missing.");
  }

  /**
   * The checkpoint's {@code metadata} file (the query id) cannot be read: edits are refused, as
   * a restart would fail; reads need no query id.
   */
  public static RuntimeException corruptMetadata(String path, String damage) {
    return analysis(
        "SAVEPOINT_CORRUPT_FILE",
        "File metadata of checkpoint '"
            + path
            + "' is damaged ("
            + damage
            + "), so the checkpoint cannot be written or copied: a query restarted on it would"
            + " fail too (reads work). Run `spark-savepoint repair "
            + path
            + "`, which writes back the query id this tool recorded (else a new one), or restore"
            + " the file from a copy; it holds only the query id: {\"id\":\"<uuid>\"}.");
  }

  /** A transformWithState checkpoint moved away from where Spark recorded its schema files. */
  public static RuntimeException movedCheckpoint(String path, String uid, String missing) {
    return analysis(
        "SAVEPOINT_MOVED_CHECKPOINT",
        "Cannot read "
            + uid
            + " of checkpoint '"
            + path
            + "': its operator metadata names"
            + " state schema files where the checkpoint was written ("
            + missing
            + "), and they"
            + " are gone, and not all of them are in this checkpoint's own"
            + " state/<operator>/_stateSchema/ folder, where a copy keeps them (Spark records"
            + " them by absolute path for transformWithState). Copy that folder from the"
            + " original too, or read the checkpoint where it was written.");
  }

  /**
   * A state store partition that Spark's provider cannot load (task side): its files are
   * damaged or incomplete, or (an {@code OutOfMemoryError} among the causes) the task's heap is
   * too small for it.
   */
  public static Refusal unloadableState(
      String path,
      String uid,
      long operatorId,
      String state,
      long batchId,
      long version,
      int partition,
      Throwable cause) {
    if (outOfMemory(cause)) {
      return (Refusal)
          rejected(
              "SAVEPOINT_OUT_OF_MEMORY",
              "State of "
                  + where(path, uid, state)
                  + " for batch "
                  + batchId
                  + " does not fit in"
                  + " the task's memory: loading state/"
                  + operatorId
                  + "/"
                  + partition
                  + "/ (version "
                  + version
                  + ") ran out of heap ("
                  + rootLine(cause)
                  + "). Spark's HDFS-backed provider holds a whole partition on the heap to read or"
                  + " change it: give the executors more memory (spark.executor.memory;"
                  + " spark.driver.memory in local mode), or restore a savepoint of it onto more"
                  + " partitions or RocksDB. Nothing was changed.");
    }
    return (Refusal)
        rejected(
            "SAVEPOINT_CORRUPT_FILE",
            "State files of "
                + where(path, uid, state)
                + " for batch "
                + batchId
                + " cannot be"
                + " loaded: state/"
                + operatorId
                + "/"
                + partition
                + "/ (version "
                + version
                + " and the files it builds on: "
                + version
                + ".delta, .changelog, .zip, .snapshot)"
                + " is damaged or incomplete ("
                + rootLine(cause)
                + "). Read an older batch with"
                + " VERSION AS OF, or restore the state folder from a copy of the checkpoint; after"
                + " an INSERT OVERWRITE killed while moving its files into place, run"
                + " spark-savepoint recover "
                + path
                + " to complete it.");
  }

  /** True when {@code error} or one of its causes is an {@code OutOfMemoryError}. */
  static boolean outOfMemory(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof OutOfMemoryError) return true;
    }
    return false;
  }

  /** The first line of the innermost cause that has a message (it usually names the file). */
  public static String rootLine(Throwable error) {
    String line = firstLine(error);
    for (Throwable t = error.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) line = firstLine(t);
    }
    return line;
  }

  public static RuntimeException io(String path, Exception cause) {
    return analysis(
        "SAVEPOINT_IO", "Could not read checkpoint '" + path + "': " + cause.getMessage());
  }

  // ---- writes ----

  /** An error raised inside a Spark task (data-dependent write checks): same message format. */
  public static RuntimeException rejected(String errorClass, String message) {
    return new Refusal(errorClass, message);
  }

  private static String where(String path, String uid, String state) {
    return "state " + uid + "." + state + " of checkpoint '" + path + "'";
  }

  /** The message of a refused write: "Cannot write state uid.state of checkpoint 'path': ...". */
  private static String cannotWrite(String path, String uid, String state, String why) {
    return "Cannot write " + where(path, uid, state) + ": " + why;
  }

  public static RuntimeException queryRunning(String path, String uid, String state, String query) {
    return analysis(
        "SAVEPOINT_QUERY_RUNNING",
        cannotWrite(
            path,
            uid,
            state,
            "streaming query "
                + query
                + " of this session is running on it. Stop it (query.stop()), write, then"
                + " restart it."));
  }

  public static RuntimeException writeUncommitted(
      String path, String uid, String state, long batchId) {
    return analysis(
        "SAVEPOINT_UNCOMMITTED_BATCH",
        cannotWrite(
            path,
            uid,
            state,
            "batch "
                + batchId
                + " is planned (offsets/"
                + batchId
                + ") but not committed (no commits/"
                + batchId
                + "): the query is running or stopped mid-batch. Stop the query, or restart"
                + " it until the batch commits, then write again."));
  }

  public static RuntimeException readOnlyState(String path, String uid, String state, String why) {
    return analysis("SAVEPOINT_READ_ONLY_STATE", cannotWrite(path, uid, state, why));
  }

  public static RuntimeException columnMismatch(
      String path, String uid, String state, String problem, String expected) {
    return analysis(
        "SAVEPOINT_COLUMN_MISMATCH",
        cannotWrite(
            path,
            uid,
            state,
            problem
                + ". The table's columns are "
                + expected
                + " (the metadata column partition_id may"
                + " follow them, and is recomputed). Give them by position, or all by name."));
  }

  public static RuntimeException typeMismatch(
      String path,
      String uid,
      String state,
      String column,
      String expected,
      String given,
      String fix) {
    return analysis(
        "SAVEPOINT_TYPE_MISMATCH",
        cannotWrite(
            path,
            uid,
            state,
            "column "
                + column
                + " is "
                + expected
                + " but the statement gives "
                + given
                + ". "
                + fix));
  }

  /** A NULL key in an incoming row: found in a write task. */
  public static RuntimeException nullKey(String path, String uid, String state, String column) {
    return rejected(
        "SAVEPOINT_NULL_KEY",
        cannotWrite(
            path,
            uid,
            state,
            "key column "
                + column
                + " is NULL in an incoming row. State keys cannot be NULL: filter such rows out"
                + " (WHERE "
                + column
                + " IS NOT NULL). Nothing was written."));
  }

  /** A NULL key given as a literal (VALUES (NULL, ...)): found on the driver. */
  public static RuntimeException nullKeyGiven(
      String path, String uid, String state, String column) {
    return analysis(
        "SAVEPOINT_NULL_KEY",
        cannotWrite(
            path,
            uid,
            state,
            "key column "
                + column
                + " is given as NULL. State keys cannot be NULL: give a value. Nothing was"
                + " written."));
  }

  public static RuntimeException duplicateKey(String path, String uid, String state, String key) {
    return rejected(
        "SAVEPOINT_DUPLICATE_KEY",
        cannotWrite(
            path,
            uid,
            state,
            "the statement"
                + " gives key "
                + key
                + " more than once. Give each key at most once (e.g. aggregate"
                + " or deduplicate the rows first). Nothing was written."));
  }

  /**
   * A write of a non-strict checkpoint's state (keys placed by the query's input partitioning,
   * {@code checkpoint.KeyPlacement}) that does not name the placing columns.
   */
  public static RuntimeException unknownPartitioning(
      String path, String uid, String state, long batchId, String fits) {
    return analysis(
        "SAVEPOINT_UNKNOWN_PARTITIONING",
        cannotWrite(
            path,
            uid,
            state,
            "its query placed keys in state partitions by the partitioning of its input, not by all"
                + " key columns (offsets/"
                + batchId
                + " does not record"
                + " spark.sql.streaming.statefulOperator.useStrictDistribution=true, as for every"
                + " query started before Spark 3.3), and only the query knows which columns those"
                + " are. Name them with the write option partitioned_by (SQL: SET "
                + Settings.WRITE_PARTITIONED_BY
                + "=<columns>), or run the query once with"
                + " spark-savepoint's settings, which records them; "
                + fits
                + ". Nothing was"
                + " written."));
  }

  /** A partitioning ({@code source}: given or recorded) that some stored key contradicts. */
  public static RuntimeException partitioningMismatch(
      String path, String uid, String state, String source, long misplaced, String fits) {
    return analysis(
        "SAVEPOINT_PARTITIONING_MISMATCH",
        cannotWrite(
            path,
            uid,
            state,
            source
                + " places "
                + misplaced
                + " stored key(s) in another state"
                + " partition than the one they live in, so it is not how the query partitions its"
                + " input; "
                + fits
                + ". Nothing was written."));
  }

  /** A {@code partitioned_by} that names no key column, or is given on a strict checkpoint. */
  public static RuntimeException badPartitioning(
      String path, String uid, String state, String why) {
    return analysis(
        "SAVEPOINT_BAD_ARGUMENTS", cannotWrite(path, uid, state, why + " Nothing was written."));
  }

  public static RuntimeException wrongPartition(
      String path, String uid, String state, String key, int expected, int actual) {
    return rejected(
        "SAVEPOINT_PARTITION_MISMATCH",
        "Internal error writing "
            + where(path, uid, state)
            + ": key "
            + key
            + " hashes to state"
            + " partition "
            + expected
            + " but reached task partition "
            + actual
            + ". Nothing"
            + " was written; please report this.");
  }

  public static RuntimeException concurrentWrite(String path, long batchId, String why) {
    return analysis(
        "SAVEPOINT_CONCURRENT_WRITE",
        "Cannot commit batch "
            + batchId
            + " of checkpoint '"
            + path
            + "': "
            + why
            + ". This"
            + " write changed nothing; run it again to apply it on top of the checkpoint's new"
            + " last batch.");
  }

  public static RuntimeException queryAlive(
      String path, String uid, String state, String activity, String forceConf) {
    return analysis(
        "SAVEPOINT_QUERY_ALIVE",
        cannotWrite(
            path,
            uid,
            state,
            "its streaming query"
                + " may still be running ("
                + activity
                + "). Stop the query (query.stop(), or end its"
                + " application) before editing; if you know it is stopped, write with the option"
                + " force=true (SET "
                + forceConf
                + "=true, or --force)."));
  }

  public static RuntimeException interruptedEdit(String path, long batchId, String claims) {
    return analysis(
        "SAVEPOINT_INTERRUPTED_EDIT",
        "Batch "
            + batchId
            + " of checkpoint '"
            + path
            + "' was claimed by an edit that has not"
            + " committed ("
            + claims
            + "): it may still be writing, on another host, or have"
            + " been interrupted. If that writer has stopped, restart the streaming"
            + " query once (it completes batch "
            + batchId
            + " without the edit) or run"
            + " `spark-savepoint recover "
            + path
            + " --force`; then edit again.");
  }

  /** A statement of an edit transaction that the transaction cannot take. */
  public static RuntimeException transactionConflict(
      String path, String uid, String state, String why) {
    return analysis(
        "SAVEPOINT_TRANSACTION_CONFLICT",
        "Cannot use "
            + where(path, uid, state)
            + " in this transaction: "
            + why
            + ". The statement changed nothing; the transaction's earlier statements stay"
            + " staged while it is open.");
  }

  /** {@code conf} names a transaction that is not open (committed, rolled back, unknown). */
  public static RuntimeException transactionEnded(String id, String conf) {
    return analysis(
        "SAVEPOINT_TRANSACTION_ENDED",
        "Transaction "
            + id
            + " ("
            + conf
            + ") is not open: it was committed or rolled back, or belongs to another driver. Start"
            + " a new one (Python: with spark_savepoint.edit(spark) as tx), or RESET "
            + conf
            + ".");
  }

  public static RuntimeException writeFailed(String path, String what, Exception cause) {
    return analysis(
        "SAVEPOINT_WRITE_FAILED",
        "Could not " + what + " in checkpoint '" + path + "': " + cause.getMessage());
  }

  // ---- empty savepoints ----

  /** {@code what} needs a new folder and {@code target} is not one (or another writer won it). */
  public static RuntimeException targetInUse(String target, String what) {
    return analysis(
        "SAVEPOINT_TARGET_NOT_EMPTY",
        "Cannot "
            + what
            + " in '"
            + target
            + "': the target exists and is not an empty folder."
            + " Choose a new folder (it is created) or empty this one; nothing was written.");
  }

  /** The target of a take/restore holds the remains of an interrupted one (no commit). */
  /**
   * A folder an action of the tool (savepoint, restore, empty savepoint, upgrade) started to
   * write and has not finished: its metadata file still holds the action's claim.
   */
  public static RuntimeException unfinishedCheckpoint(String path, String action, String writer) {
    return analysis(
        "SAVEPOINT_UNFINISHED_CHECKPOINT",
        "'"
            + path
            + "' is not a checkpoint yet: "
            + action
            + " started writing it ("
            + writer
            + ") and has not finished; no query can continue from it (Spark cannot read its"
            + " metadata file). If that writer still runs, wait for it; if it has ended, run"
            + " `spark-savepoint recover "
            + path
            + "` (add --force when it ran on another"
            + " host) to remove what it wrote, then run it again.");
  }

  public static RuntimeException targetInterrupted(String target, String what) {
    return analysis(
        "SAVEPOINT_TARGET_NOT_EMPTY",
        "Cannot "
            + what
            + " in '"
            + target
            + "': the target holds an interrupted savepoint or"
            + " restore (no committed batch; no query can continue from it). Run"
            + " `spark-savepoint recover "
            + target
            + "` (it removes what the interrupted action"
            + " wrote once that has ended) or remove the folder, and run again, or choose a new"
            + " folder; nothing was written.");
  }

  // ---- savepoints: take, restore, list, dispose ----

  /** An argument of take/restore that names nothing or cannot be honoured as given. */
  public static RuntimeException badArguments(String path, String problem) {
    return analysis(
        "SAVEPOINT_BAD_ARGUMENTS",
        problem + " (checkpoint '" + path + "');" + " nothing was written.");
  }

  /** A restore Spark could not run afterwards (or the tool cannot do yet). */
  public static RuntimeException restoreUnsupported(String path, String uid, String why) {
    return analysis(
        "SAVEPOINT_RESTORE_UNSUPPORTED",
        "Cannot restore "
            + uid
            + " of '"
            + path
            + "' as asked: "
            + why
            + " Nothing was"
            + " written.");
  }

  /** A savepoint file whose size or checksum differs from its manifest. */
  public static RuntimeException checksumMismatch(String path, String file, String found) {
    return analysis(
        "SAVEPOINT_CHECKSUM_MISMATCH",
        "File "
            + file
            + " of savepoint '"
            + path
            + "' "
            + found
            + ", not what its"
            + " _savepoint.json records: the savepoint was changed or damaged after it was"
            + " taken. Restore from another savepoint or copy of it; nothing was written.");
  }

  /** A write through the catalog into a savepoint that was not taken or opened writable. */
  public static RuntimeException readOnlySavepoint(String path, String uid, String state) {
    return analysis(
        "SAVEPOINT_READ_ONLY_SAVEPOINT",
        "Cannot write "
            + uid
            + "."
            + state
            + ": '"
            + path
            + "' is a savepoint, and savepoints"
            + " are immutable. Restore it (spark-savepoint savepoint restore "
            + path
            + " NEW_CHECKPOINT) and edit the restored checkpoint, or open it for edits with"
            + " writable=True (catalog option spark.sql.catalog.<name>.writable=true).");
  }

  /** Dispose (or another savepoint-only action) on a folder without {@code _savepoint.json}. */
  public static RuntimeException notASavepoint(String path) {
    return analysis(
        "SAVEPOINT_NOT_A_SAVEPOINT",
        "'"
            + path
            + "' is not a savepoint (it has no _savepoint.json). Only savepoints taken"
            + " with `spark-savepoint savepoint take` can be disposed; nothing was removed.");
  }

  /**
   * {@code <catalog>.sink.files} without a file sink log to read: no {@code sink} option
   * ({@code output} null), or no {@code _spark_metadata} under it.
   */
  public static RuntimeException noSinkLog(String path, String output, String catalog) {
    String how =
        "set the catalog's sink option to the query's output folder (attach(spark,"
            + " path, sink=OUTPUT), spark-savepoint sql --sink OUTPUT, or"
            + " spark.sql.catalog."
            + catalog
            + ".sink=OUTPUT)";
    return analysis(
        "SAVEPOINT_NO_SINK_LOG",
        output == null
            ? "Catalog "
                + catalog
                + " (checkpoint '"
                + path
                + "') knows no file sink: a file"
                + " sink keeps its log beside its output, not in the checkpoint; "
                + how
                + "."
            : "'"
                + output
                + "' has no file sink log (_spark_metadata), so it is not the output"
                + " folder of a streaming query's file sink (checkpoint '"
                + path
                + "'): "
                + how
                + ".");
  }

  /** An edit of {@code sources.offsets} that a source cannot honour; nothing was written. */
  public static RuntimeException badSourcePosition(String path, String source, String why) {
    return analysis(
        "SAVEPOINT_BAD_SOURCE_POSITION",
        "Cannot set the position of "
            + source
            + " in checkpoint '"
            + path
            + "': "
            + why
            + ". Nothing was written.");
  }

  /** An edit of {@code query.batches} other than setting the watermark; nothing was written. */
  public static RuntimeException badWatermark(String path, String why) {
    return analysis(
        "SAVEPOINT_BAD_WATERMARK",
        "Cannot edit the batches of checkpoint '" + path + "': " + why + ". Nothing was written.");
  }

  /** An upgrade that cannot or may not be written; nothing was written. */
  public static RuntimeException upgradeRefused(String path, String why) {
    return analysis(
        "SAVEPOINT_UPGRADE_REFUSED",
        "Cannot upgrade checkpoint '"
            + path
            + "' to the new query: "
            + why
            + ". Nothing was written.");
  }
}
