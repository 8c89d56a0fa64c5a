package dev.sparksavepoint.procedures;

import dev.sparksavepoint.doctor.Repair;
import dev.sparksavepoint.doctor.RepairPlan;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.repair([dry_run, to_batch, force])}: the repair's plan for the
 * catalog's checkpoint ({@link RepairPlan}), one row per file-level step, applied unless
 * {@code dry_run} ({@link Repair}), then a row per finding left for hands ({@code action}
 * {@code by hand}) and a last row {@code summary}.
 */
final class RepairProcedure extends ActionProcedure {

  RepairProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "repair",
        "Repairs the checkpoint (or, dry_run, says how): one row per step, then a summary.",
        "action string, file string, why string",
        in("dry_run", DataTypes.BooleanType, "false"),
        in("to_batch", DataTypes.LongType, "-1"),
        in("force", DataTypes.BooleanType, "false"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    RepairPlan.Plan plan = RepairPlan.of(spark, checkpoint(), args.getLong(1));
    return Repair.rows(spark, plan, args.getBoolean(0), args.getBoolean(2));
  }
}
