package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.TableOrigin;
import dev.sparksavepoint.commit.SessionReports;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

/**
 * Builds the write of one state table: an upsert by key (INSERT INTO, {@code append()}), or,
 * after {@link #truncate}, a replace of the table's whole content (INSERT OVERWRITE,
 * {@code overwrite(lit(true))}: full images where the state allows, see {@code StateWrite}), or
 * after {@link #rewriteRows} the copy-on-write rewrite Spark runs for DELETE, UPDATE and MERGE.
 * Everything that can be checked without the data is checked here, before any task runs: the
 * checkpoint's state, the state kind, the given columns and their types.
 */
public final class StateWriteBuilder implements WriteBuilder, SupportsTruncate {
  private final TableOrigin origin;
  private final StructType table;
  private final LogicalWriteInfo info;
  private boolean replace;

  /** True for the copy-on-write rewrite of DELETE, UPDATE and MERGE. */
  private boolean rewrite;

  public StateWriteBuilder(TableOrigin origin, StructType table, LogicalWriteInfo info) {
    this.origin = origin;
    this.table = table;
    this.info = info;
  }

  /** Replace the whole state of the table instead of upserting into it. */
  @Override
  public WriteBuilder truncate() {
    replace = true;
    return this;
  }

  /**
   * Replace the table's content with the rows of a copy-on-write command (DELETE, UPDATE,
   * MERGE): most rows are the stored ones, so only the differences are written.
   */
  public WriteBuilder rewriteRows() {
    rewrite = true;
    return truncate();
  }

  @Override
  public Write build() {
    SparkSession spark = SparkSession.active();
    WritePlan plan = WritePlan.prepare(spark, origin, info.options().getBoolean("force", false));
    if (plan.dryRun()) SessionReports.of(spark).forgetDryRun(); // the next report is this one's
    RowEncoder encoder =
        RowEncoder.create(
            plan, table, info.schema(), spark.sessionState().conf().sessionLocalTimeZone());
    encoder.place(
        WritePlacement.resolve(
            spark, origin, plan.batchId(), encoder.groupingNames(), info.options()));
    EditTransaction transaction = plan.dryRun() ? null : EditTransaction.active(spark);
    if (transaction != null) plan = transaction.admit(plan);
    return new StateWrite(plan, encoder, replace, replace && !rewrite, transaction);
  }
}
