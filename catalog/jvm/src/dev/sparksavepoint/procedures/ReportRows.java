package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.CheckpointSql;
import dev.sparksavepoint.commit.DryRunReport;
import dev.sparksavepoint.commit.EditReport;
import java.util.ArrayList;
import java.util.List;

/** The result rows of the procedures that report edits and dry runs, one shape each. */
final class ReportRows {
  /** An edit: {@code batch_id} null when nothing was committed, {@code removed} null for images. */
  static final String EDIT =
      "checkpoint string, table string, batch_id bigint, written bigint, removed bigint,"
          + " summary string, warning string";

  /** A dry run: what the write would add, change and remove, a few samples. */
  static final String DRY_RUN =
      "checkpoint string, table string, batch_id bigint, added bigint, changed bigint,"
          + " removed bigint, samples array<string>, summary string";

  /**
   * An action that is statements over the state tables (undo, purge): a row per statement (with
   * a dry run's plan of it), then the outcome's row without one.
   */
  static final String STATEMENTS = "batch_id bigint, statement string, summary string";

  private ReportRows() {}

  /** {@code report} as an {@link #EDIT} row; no row for no report. */
  static List<Object[]> edit(EditReport report) {
    if (report == null) return List.of();
    return List.<Object[]>of(
        new Object[] {
          report.checkpoint(),
          report.table(),
          report.committed() ? report.batchId() : null,
          report.written(),
          report.removed() == EditReport.REPLACED ? null : report.removed(),
          report.describe(),
          report.warning()
        });
  }

  /** {@code reports} as {@link #DRY_RUN} rows. */
  static List<Object[]> dryRuns(List<DryRunReport> reports) {
    return reports.stream().map(ReportRows::dryRun).toList();
  }

  private static Object[] dryRun(DryRunReport report) {
    return new Object[] {
      report.checkpoint(),
      report.table(),
      report.batchId(),
      report.added(),
      report.changed(),
      report.removed(),
      report.samples(),
      report.describe()
    };
  }

  /**
   * A row per statement (with a dry run's plan of each), then the outcome's row; {@code
   * nothing}: its summary when no statement ran (formatted with the batch id).
   */
  static List<Object[]> statements(
      Long batchId, List<String> statements, CheckpointSql.Outcome outcome, String nothing) {
    List<Object[]> rows = new ArrayList<>();
    List<DryRunReport> planned = outcome == null ? null : outcome.planned();
    for (int i = 0; i < statements.size(); i++) {
      String plan = planned != null && i < planned.size() ? planned.get(i).describe() : null;
      rows.add(new Object[] {batchId, statements.get(i), plan});
    }
    String summary =
        outcome == null
            ? String.format(nothing, batchId)
            : planned != null ? "dry run: nothing was written" : outcome.report().describe();
    rows.add(new Object[] {batchId, null, summary});
    return rows;
  }
}
