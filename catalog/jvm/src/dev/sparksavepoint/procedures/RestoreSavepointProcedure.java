package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.CopyChanges;
import dev.sparksavepoint.actions.RestoreSavepoint;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL <catalog>.system.restore_savepoint(target [, partitions, provider, uids, drop])}:
 * the catalog's checkpoint or savepoint restored into a new checkpoint folder
 * ({@link RestoreSavepoint}). One row: the new checkpoint and a one-line summary.
 */
final class RestoreSavepointProcedure extends ActionProcedure {
  private static final StructType OUTPUT = StructType.fromDDL("target string, message string");

  RestoreSavepointProcedure(Supplier<String> checkpoint) {
    super(checkpoint);
  }

  @Override
  public String name() {
    return "restore_savepoint";
  }

  @Override
  public String description() {
    return "Restores the checkpoint or savepoint into a new checkpoint folder.";
  }

  @Override
  public ProcedureParameter[] parameters() {
    return new ProcedureParameter[] {in("target", DataTypes.StringType, null),
        in("partitions", DataTypes.IntegerType, "0"), in("provider", DataTypes.StringType, "''"),
        in("uids", DataTypes.StringType, "''"), in("drop", DataTypes.StringType, "''")};
  }

  @Override
  StructType output() {
    return OUTPUT;
  }

  @Override
  List<Object[]> run(SparkSession spark, String checkpoint, InternalRow args) {
    String target = string(args, 0);
    String provider = string(args, 2);
    String message = RestoreSavepoint.run(spark, checkpoint, target, CopyChanges.of(
        args.getInt(1), provider == null || provider.isEmpty() ? null : provider,
        list(string(args, 3)), list(string(args, 4))));
    return List.<Object[]>of(new Object[] {target, message});
  }
}
