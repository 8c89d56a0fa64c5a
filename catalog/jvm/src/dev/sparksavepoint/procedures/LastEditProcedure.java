package dev.sparksavepoint.procedures;

import dev.sparksavepoint.commit.SessionReports;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;

/**
 * {@code CALL <catalog>.system.last_edit()}: what this session's last edit of any checkpoint did
 * (INSERT, DELETE, UPDATE, MERGE, a transaction's commit): one row ({@link ReportRows#EDIT}),
 * none before the first.
 */
final class LastEditProcedure extends ActionProcedure {

  LastEditProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "last_edit",
        "What this session's last edit did: the batch it committed and the entries it changed.",
        ReportRows.EDIT);
    changesNoFile();
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    return ReportRows.edit(SessionReports.of(spark).edit());
  }
}
