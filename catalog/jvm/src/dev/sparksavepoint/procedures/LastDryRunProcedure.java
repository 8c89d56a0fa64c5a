package dev.sparksavepoint.procedures;

import dev.sparksavepoint.commit.DryRunReport;
import dev.sparksavepoint.commit.SessionReports;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;

/**
 * {@code CALL <catalog>.system.last_dry_run()}: what this session's last write run with
 * {@code spark.savepoint.write.dryRun=true} would have done: one row ({@link ReportRows#DRY_RUN}),
 * none before the first.
 */
final class LastDryRunProcedure extends ActionProcedure {

  LastDryRunProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "last_dry_run",
        "What this session's last dry run of a write found; nothing was written.",
        ReportRows.DRY_RUN);
    changesNoFile();
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    DryRunReport report = SessionReports.of(spark).dryRun();
    return ReportRows.dryRuns(report == null ? List.of() : List.of(report));
  }
}
