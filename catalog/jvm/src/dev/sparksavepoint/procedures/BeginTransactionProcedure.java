package dev.sparksavepoint.procedures;

import dev.sparksavepoint.conf.Settings;
import dev.sparksavepoint.write.EditTransaction;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;

/**
 * {@code CALL <catalog>.system.begin_transaction()}: opens an edit transaction
 * ({@link EditTransaction}). One row: its id and the session setting to set to it, after which
 * the session's writes are staged in it until {@code commit_transaction(id)} or
 * {@code rollback_transaction(id)}.
 */
final class BeginTransactionProcedure extends ActionProcedure {

  BeginTransactionProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "begin_transaction",
        "Opens an edit transaction: set the returned setting to its id to stage writes in it.",
        "transaction string, setting string");
    changesNoFile();
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    return List.<Object[]>of(new Object[] {EditTransaction.begin(), Settings.WRITE_TRANSACTION});
  }
}
