package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.CopyChanges;
import dev.sparksavepoint.actions.RestoreSavepoint;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.restore_savepoint(target [, partitions, provider, uids, drop])}:
 * the catalog's checkpoint or savepoint restored into a new checkpoint folder
 * ({@link RestoreSavepoint}). One row: the new checkpoint and a one-line summary.
 */
final class RestoreSavepointProcedure extends ActionProcedure {

  RestoreSavepointProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "restore_savepoint",
        "Restores the checkpoint or savepoint into a new checkpoint folder.",
        "target string, message string",
        in("target", DataTypes.StringType, null),
        in("partitions", DataTypes.IntegerType, "0"),
        in("provider", DataTypes.StringType, "''"),
        in("uids", DataTypes.StringType, "''"),
        in("drop", DataTypes.StringType, "''"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    String checkpoint = checkpoint();
    String target = string(args, 0);
    String provider = string(args, 2);
    String message =
        RestoreSavepoint.run(
            spark,
            checkpoint,
            target,
            CopyChanges.of(
                args.getInt(1),
                provider == null || provider.isEmpty() ? null : provider,
                list(string(args, 3)),
                list(string(args, 4))));
    return List.<Object[]>of(new Object[] {target, message});
  }
}
