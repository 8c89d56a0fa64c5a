package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.DisposeSavepoint;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.dispose_savepoint([path])}: removes a savepoint, exactly the
 * files its manifest lists ({@link DisposeSavepoint}); without {@code path}, the catalog's own.
 * One row: the path and what went.
 */
final class DisposeSavepointProcedure extends ActionProcedure {

  DisposeSavepointProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "dispose_savepoint",
        "Removes a savepoint: exactly the files its manifest lists.",
        "path string, message string",
        in("path", DataTypes.StringType, "''"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    String checkpoint = checkpoint();
    String given = string(args, 0);
    String path = given == null || given.isEmpty() ? checkpoint : given;
    String message = DisposeSavepoint.run(path, spark.sessionState().newHadoopConf());
    return List.<Object[]>of(new Object[] {path, message});
  }
}
