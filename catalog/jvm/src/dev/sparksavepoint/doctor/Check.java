package dev.sparksavepoint.doctor;

/**
 * The classes of findings, each with its severity and fix: stable names that scripts and
 * docs/doctor.md use. {@code ERROR}: the query cannot restart, or would restart on wrong state;
 * {@code WARNING}: it restarts, but something should be fixed; {@code INFO}: worth knowing.
 */
public enum Check {
  METADATA_MISSING(
      Severity.ERROR,
      "Restore the metadata file from a copy of the checkpoint (it holds only the query id,"
          + " {\"id\":\"<uuid>\"}); Spark refuses to restart without it"
          + " (STREAMING_CHECKPOINT_MISSING_METADATA_FILE)."),
  METADATA_UNREADABLE(
      Severity.ERROR,
      "Restore the metadata file from a copy of the checkpoint: one JSON line,"
          + " {\"id\":\"<uuid>\"}."),
  LOG_ENTRY_UNREADABLE(
      Severity.ERROR,
      "Restore the entry from a copy, or run spark-savepoint repair: it rolls the checkpoint back"
          + " to the batch before it, and the query runs it again."),
  LOG_ENTRY_NEWER(
      Severity.ERROR, "Run the query on the Spark release that wrote the entry, or a newer one."),
  LOG_GAP(
      Severity.WARNING,
      "Restore the missing entries from a copy; until then the batches around the gap cannot be"
          + " read as of them, rolled back to or compared. Where the query's restart reads the"
          + " entry (the one before the last offsets), run spark-savepoint repair: it rolls the"
          + " checkpoint back to before the gap."),
  COMMIT_WITHOUT_OFFSETS(
      Severity.ERROR,
      "Restore offsets/<batch> from a copy, or run spark-savepoint repair: it rolls the"
          + " checkpoint back to the last batch that has both entries."),
  UNCOMMITTED_BATCH(
      Severity.INFO,
      "Nothing to do: the query stopped after planning the batch and runs it again on restart."),
  UNCOMMITTED_BATCHES(
      Severity.ERROR,
      "Run spark-savepoint repair (it removes the offsets/ entries after the first uncommitted"
          + " batch): Spark plans one batch at a time."),
  STALE_CHECKSUM(
      Severity.WARNING,
      "The file was changed after it was written, and Spark reads it as it is: if the change was"
          + " meant, run spark-savepoint repair (it rewrites the checksum file), else restore the"
          + " file from a copy."),
  STATE_FILE_CORRUPT(
      Severity.ERROR,
      "Restore the file from a copy, or run spark-savepoint repair: it rolls the checkpoint back"
          + " to the last batch whose state loads, and the query runs the later ones again."),
  STATE_FILE_MISSING(
      Severity.ERROR,
      "Restore the file from a copy, or run spark-savepoint repair: it rolls the checkpoint back"
          + " to the last batch whose state loads, and the query runs the later ones again."),
  SST_FILE_MISSING(
      Severity.ERROR,
      "Restore the SST file from a copy, or run spark-savepoint repair: it builds the version"
          + " from an older snapshot, or rolls back to the last batch whose state loads."),
  STATE_PARTITION_MISSING(
      Severity.ERROR,
      "Restore the partition's folder from a copy: no batch's state loads without it."),
  SCHEMA_FILE_MISSING(
      Severity.ERROR,
      "Restore the state schema file from a copy; a file of partition 0 (not named by operator"
          + " metadata) the query's restart also writes anew."),
  OPERATOR_METADATA_MISSING(
      Severity.ERROR,
      "Run spark-savepoint repair --query MODULE:FUNCTION: it writes the operator metadata as the"
          + " query's plan writes it, naming the checkpoint's own schema files; or restore"
          + " _metadata/v2/ from a copy."),
  ORPHAN_CHECKSUM(
      Severity.ERROR,
      "Run spark-savepoint repair (it removes the checksum file): Spark writes a file by renaming a"
          + " temporary one with its checksum file onto it, which fails while this one is there."),
  PARTITIONS_DISAGREE(
      Severity.ERROR,
      "Find which count is right (the offset log's is what Spark restarts with) and restore the"
          + " files that disagree from a copy."),
  EXTRA_PARTITION(
      Severity.WARNING,
      "Remove the folder, or restore the checkpoint's partition count: Spark ignores state of"
          + " partitions it does not run."),
  PROVIDER_DISAGREE(
      Severity.ERROR,
      "Restart with the provider whose files the state holds, or restore the state with"
          + " spark-savepoint savepoint restore --provider."),
  FORMAT_DISAGREE(
      Severity.ERROR,
      "Restore the commit log entry from a copy: the state files were written with the other"
          + " checkpoint format (spark.sql.streaming.stateStore.checkpointFormatVersion)."),
  STATE_FILES_PAST_COMMIT(
      Severity.WARNING,
      "Run spark-savepoint repair once no query runs (it removes them): a batch killed after"
          + " writing state and before its commit left them; it writes them anew when it runs"
          + " again."),
  EDIT_LEFTOVER(
      Severity.WARNING, "Run spark-savepoint recover once no edit runs: a killed edit left it."),
  REPAIR_UNFINISHED(
      Severity.WARNING,
      "Run spark-savepoint repair --undo: it puts back what the repair changed (then repair"
          + " again)."),
  STATE_NEVER_EVICTED(
      Severity.INFO,
      "Nothing to do if its keys are few (a running total per customer). Otherwise give the"
          + " query a watermark on an event-time column of the key (withWatermark;"
          + " dropDuplicatesWithinWatermark for dropDuplicates): a changed query, see"
          + " spark-savepoint upgrade. Rows no longer needed can go now as an edit:"
          + " spark-savepoint purge CKPT --older-than TIME --column C, or DELETE ... WHERE."),
  TEMPORARY_FILE(
      Severity.INFO,
      "Run spark-savepoint repair once no query runs (it removes it): nothing reads it."),
  QUERY_ACTIVE(
      Severity.WARNING,
      "Stop the query before repairing it; what it writes meanwhile may change these findings.");

  /** How much a finding matters. */
  public enum Severity {
    ERROR,
    WARNING,
    INFO
  }

  private final Severity severity;
  private final String fix;

  Check(Severity severity, String fix) {
    this.severity = severity;
    this.fix = fix;
  }

  public Severity severity() {
    return severity;
  }

  public String fix() {
    return fix;
  }
}
