package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.RelocateCheckpoint;
import dev.sparksavepoint.actions.RelocateCheckpoint.Moved;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.relocate(target [, move, sink_paths, source_paths, force])}: the
 * catalog's checkpoint, every batch it keeps, copied (or moved) to the new folder {@code
 * target} on any file system, its absolute paths re-pointed ({@link RelocateCheckpoint}).
 * {@code sink_paths} and {@code source_paths} are comma-separated {@code OLD=NEW} folders.
 * One row: where it went and what was done.
 */
final class RelocateProcedure extends ActionProcedure {

  RelocateProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "relocate",
        "Copies or moves the checkpoint to another folder, re-pointing the paths it holds.",
        "checkpoint string, target string, message string",
        in("target", DataTypes.StringType, null),
        in("move", DataTypes.BooleanType, "false"),
        in("sink_paths", DataTypes.StringType, "''"),
        in("source_paths", DataTypes.StringType, "''"),
        in("force", DataTypes.BooleanType, "false"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    String checkpoint = checkpoint();
    String target = string(args, 0);
    String message =
        RelocateCheckpoint.run(
            spark,
            checkpoint,
            target,
            args.getBoolean(1),
            list(string(args, 2)).stream().map(Moved::parse).toList(),
            list(string(args, 3)).stream().map(Moved::parse).toList(),
            args.getBoolean(4));
    return List.<Object[]>of(new Object[] {checkpoint, target, message});
  }
}
