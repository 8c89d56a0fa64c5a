package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.DisposeSavepoint;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL <catalog>.system.dispose_savepoint([path])}: removes a savepoint, exactly the
 * files its manifest lists ({@link DisposeSavepoint}); without {@code path}, the catalog's own.
 * One row: the path and what went.
 */
final class DisposeSavepointProcedure extends ActionProcedure {
  private static final StructType OUTPUT = StructType.fromDDL("path string, message string");

  DisposeSavepointProcedure(Supplier<String> checkpoint) {
    super(checkpoint);
  }

  @Override
  public String name() {
    return "dispose_savepoint";
  }

  @Override
  public String description() {
    return "Removes a savepoint: exactly the files its manifest lists.";
  }

  @Override
  public ProcedureParameter[] parameters() {
    return new ProcedureParameter[] {in("path", DataTypes.StringType, "''")};
  }

  @Override
  StructType output() {
    return OUTPUT;
  }

  @Override
  List<Object[]> run(SparkSession spark, String checkpoint, InternalRow args) {
    String given = string(args, 0);
    String path = given == null || given.isEmpty() ? checkpoint : given;
    String message = DisposeSavepoint.run(path, spark.sessionState().newHadoopConf());
    return List.<Object[]>of(new Object[] {path, message});
  }
}
