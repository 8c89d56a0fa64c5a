package dev.sparksavepoint.procedures;

import dev.sparksavepoint.doctor.Repair;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.repair_undo([force])}: the catalog's checkpoint put back as it
 * was before its last repair ({@link Repair#undo}). One row: what was done.
 */
final class RepairUndoProcedure extends ActionProcedure {

  RepairUndoProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "repair_undo",
        "Puts the checkpoint back as it was before its last repair.",
        "checkpoint string, message string",
        in("force", DataTypes.BooleanType, "false"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    String checkpoint = checkpoint();
    return List.<Object[]>of(
        new Object[] {checkpoint, Repair.undo(spark, checkpoint, args.getBoolean(0))});
  }
}
