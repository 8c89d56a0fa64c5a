package dev.sparksavepoint.commit;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a dry run of one write found ({@code spark.savepoint.write.dryRun=true}): the batch the
 * write would commit, the entries it would add, change and remove, and a few of them as
 * {@code key: before -> after}. Nothing was claimed or written. Logged at INFO by logger
 * {@code dev.sparksavepoint.edits}; the last one of a session is kept in its
 * {@link SessionReports} ({@code CALL <catalog>.system.last_dry_run()}; Python:
 * {@code dry_run(spark, statement)}).
 */
public record DryRunReport(
    String checkpoint,
    String table,
    long batchId,
    long added,
    long changed,
    long removed,
    List<String> samples) {
  private static final Logger LOG = LoggerFactory.getLogger("dev.sparksavepoint.edits");

  /** Reports (logs and keeps) what a dry run of an edit of {@code table} found. */
  public static DryRunReport of(
      BatchPlan plan, String table, long added, long changed, long removed, List<String> samples) {
    DryRunReport report =
        new DryRunReport(
            plan.checkpoint(),
            table,
            CheckpointLog.nextBatch(plan.batchId()),
            added,
            changed,
            removed,
            List.copyOf(samples));
    SessionReports.active().keep(report);
    LOG.info(report.describe());
    return report;
  }

  /** True when the write would change nothing (and so commit no batch). */
  public boolean unchanged() {
    return added + changed + removed == 0;
  }

  /**
   * One line, e.g. "savepoint: dry run of agg_0.default: 1 added, 1 changed, 0 removed (batch
   * 3 of '/c' if run; nothing written)".
   */
  public String describe() {
    String what =
        "savepoint: dry run of "
            + table
            + ": "
            + added
            + " added, "
            + changed
            + " changed, "
            + removed
            + " removed";
    return what
        + (unchanged()
            ? " (no batch would be committed in '" + checkpoint + "')"
            : " (batch " + batchId + " of '" + checkpoint + "' if run)")
        + "; nothing written";
  }
}
