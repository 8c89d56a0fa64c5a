package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.RecoverEdit;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL <catalog>.system.recover([force])}: completes or removes what an interrupted edit
 * of the catalog's checkpoint left ({@link RecoverEdit}). One row: the checkpoint and what was
 * done.
 */
final class RecoverProcedure extends ActionProcedure {
  private static final StructType OUTPUT = StructType.fromDDL("checkpoint string, message string");

  RecoverProcedure(Supplier<String> checkpoint) {
    super(checkpoint);
  }

  @Override
  public String name() {
    return "recover";
  }

  @Override
  public String description() {
    return "Completes or removes what an interrupted edit of the checkpoint left.";
  }

  @Override
  public ProcedureParameter[] parameters() {
    return new ProcedureParameter[] {in("force", DataTypes.BooleanType, "false")};
  }

  @Override
  StructType output() {
    return OUTPUT;
  }

  @Override
  List<Object[]> run(SparkSession spark, String checkpoint, InternalRow args) {
    return List.<Object[]>of(new Object[] {checkpoint,
        RecoverEdit.run(spark, checkpoint, args.getBoolean(0))});
  }
}
