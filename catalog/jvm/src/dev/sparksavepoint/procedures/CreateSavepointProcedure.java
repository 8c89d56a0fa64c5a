package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.EmptySavepoint;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.create_savepoint(like)}: creates the catalog's folder as an empty
 * savepoint shaped like checkpoint {@code like} ({@link EmptySavepoint}), ready to be bootstrapped
 * with INSERT. One row: the new savepoint and a one-line summary.
 */
final class CreateSavepointProcedure extends ActionProcedure {

  CreateSavepointProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "create_savepoint",
        "Creates the catalog's folder as an empty savepoint shaped like another checkpoint.",
        "target string, message string",
        in("like", DataTypes.StringType, null));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    String target = checkpoint();
    return List.<Object[]>of(
        new Object[] {target, EmptySavepoint.create(spark, target, string(args, 0))});
  }
}
