package dev.sparksavepoint.procedures;

import dev.sparksavepoint.write.EditTransaction;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.transaction_plan(transaction)}: per statement staged so far in an
 * open transaction, what its commit will add, change and remove ({@link ReportRows#DRY_RUN}).
 */
final class TransactionPlanProcedure extends ActionProcedure {

  TransactionPlanProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "transaction_plan",
        "Per statement staged in an open transaction: what its commit will change.",
        ReportRows.DRY_RUN,
        in("transaction", DataTypes.StringType, null));
    changesNoFile();
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    return ReportRows.dryRuns(EditTransaction.of(string(args, 0)).plan());
  }
}
