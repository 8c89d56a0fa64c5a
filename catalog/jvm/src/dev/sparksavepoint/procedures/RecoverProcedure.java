package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.RecoverEdit;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.recover([force])}: completes or removes what an interrupted edit
 * of the catalog's checkpoint left ({@link RecoverEdit}). One row: the checkpoint and what was
 * done.
 */
final class RecoverProcedure extends ActionProcedure {

  RecoverProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "recover",
        "Completes or removes what an interrupted edit of the checkpoint left.",
        "checkpoint string, message string",
        in("force", DataTypes.BooleanType, "false"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    String checkpoint = checkpoint();
    return List.<Object[]>of(
        new Object[] {checkpoint, RecoverEdit.run(spark, checkpoint, args.getBoolean(0))});
  }
}
