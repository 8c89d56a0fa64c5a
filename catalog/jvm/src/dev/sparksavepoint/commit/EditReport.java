package dev.sparksavepoint.commit;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one write did: the batch it committed (or -1 when it changed nothing and committed no
 * batch), how many entries it wrote and removed, and what the user should know of its effect
 * ({@code warning}, or null; logged at WARN). Logged at INFO by logger
 * {@code dev.sparksavepoint.edits}; the last one of a session is kept in its
 * {@link SessionReports} ({@code CALL <catalog>.system.last_edit()}; Python:
 * {@code last_edit(spark)}).
 */
public record EditReport(
    String checkpoint, String table, long batchId, long written, long removed, String warning) {
  private static final Logger LOG = LoggerFactory.getLogger("dev.sparksavepoint.edits");

  /** A report without a warning. */
  public EditReport(String checkpoint, String table, long batchId, long written, long removed) {
    this(checkpoint, table, batchId, written, removed, null);
  }

  /** True when the write committed a new batch. */
  public boolean committed() {
    return batchId >= 0;
  }

  /** Entries written plus entries removed by {@code commits}. */
  public static long changes(List<PartitionCommit> commits) {
    return commits.stream().mapToLong(c -> c.upserted() + c.removed()).sum();
  }

  /** Reports (logs and keeps) what an edit of {@code table} did. */
  public static EditReport of(
      BatchPlan plan, String table, List<PartitionCommit> commits, boolean committed) {
    long written = commits.stream().mapToLong(PartitionCommit::upserted).sum();
    long removed = commits.stream().mapToLong(PartitionCommit::removed).sum();
    EditReport report =
        new EditReport(
            plan.checkpoint(),
            table,
            committed ? CheckpointLog.nextBatch(plan.batchId()) : -1,
            written,
            removed,
            warning(plan));
    return record(report);
  }

  /**
   * Reports (logs and keeps) a replace that wrote full images of {@code table}: the entries of
   * the new state; how many of the old ones are gone is not counted ({@code removed} -1).
   */
  public static EditReport replaced(BatchPlan plan, String table, List<PartitionCommit> commits) {
    long written = commits.stream().mapToLong(PartitionCommit::upserted).sum();
    return record(
        new EditReport(
            plan.checkpoint(),
            table,
            CheckpointLog.nextBatch(plan.batchId()),
            written,
            REPLACED,
            warning(plan)));
  }

  /** The plan's notices as one line ("savepoint: ... '/c': a; b"), or null. */
  private static String warning(BatchPlan plan) {
    if (plan.notices().isEmpty()) return null;
    return "savepoint: before editing '"
        + plan.checkpoint()
        + "', "
        + String.join("; ", plan.notices());
  }

  /** {@code removed} of a replace that wrote full images: the whole old state was replaced. */
  public static final long REPLACED = -1;

  /** Reports (logs and keeps) {@code report}: an edit that is not of state entries. */
  public static EditReport record(EditReport report) {
    SessionReports.active().keep(report);
    LOG.info(report.describe());
    if (report.warning() != null) LOG.warn(report.warning());
    return report;
  }

  /** One line, e.g. "savepoint: agg_0.default: 3 entries written, 1 removed: batch 5 of '/c'". */
  public String describe() {
    if (!committed()) {
      return "savepoint: "
          + table
          + ": no entry changed, no batch committed in '"
          + checkpoint
          + "'";
    }
    String entries = written + (written == 1 ? " entry" : " entries");
    String what =
        removed == REPLACED
            ? "state replaced by " + entries
            : entries + " written, " + removed + " removed";
    return "savepoint: "
        + table
        + ": "
        + what
        + ": committed as batch "
        + batchId
        + " of '"
        + checkpoint
        + "'";
  }
}
