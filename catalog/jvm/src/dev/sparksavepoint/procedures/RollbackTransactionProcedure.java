package dev.sparksavepoint.procedures;

import dev.sparksavepoint.write.EditTransaction;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.rollback_transaction(transaction)}: ends an edit transaction
 * without committing and removes what its statements staged; the checkpoint is as before. One
 * row: the transaction and what was done.
 */
final class RollbackTransactionProcedure extends ActionProcedure {

  RollbackTransactionProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "rollback_transaction",
        "Ends an edit transaction without committing; what it staged is removed.",
        "transaction string, message string",
        in("transaction", DataTypes.StringType, null));
    changesNoFile();
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    String id = string(args, 0);
    EditTransaction.of(id).rollback();
    return List.<Object[]>of(new Object[] {id, "rolled back: nothing was committed"});
  }
}
