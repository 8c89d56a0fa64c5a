package dev.sparksavepoint.procedures;

import dev.sparksavepoint.write.EditTransaction;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.commit_transaction(transaction [, evicts])}: commits every
 * statement staged in the transaction as one new batch ({@link EditTransaction#commit}); {@code
 * evicts}: the batch runs the watermark the last batch set for the next, as a no-data batch does
 * (a purge of what it evicts). One row as {@code last_edit()}'s, none when the transaction had no
 * statement.
 */
final class CommitTransactionProcedure extends ActionProcedure {

  CommitTransactionProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "commit_transaction",
        "Commits the statements staged in an edit transaction as one batch.",
        ReportRows.EDIT,
        in("transaction", DataTypes.StringType, null),
        in("evicts", DataTypes.BooleanType, "false"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    return ReportRows.edit(EditTransaction.of(string(args, 0)).commit(spark, args.getBoolean(1)));
  }
}
