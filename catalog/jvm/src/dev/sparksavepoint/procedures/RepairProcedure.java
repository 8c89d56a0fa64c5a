package dev.sparksavepoint.procedures;

import dev.sparksavepoint.doctor.Finding;
import dev.sparksavepoint.doctor.Repair;
import dev.sparksavepoint.doctor.RepairPlan;
import java.util.ArrayList;
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
    boolean dryRun = args.getBoolean(0);
    RepairPlan.Plan plan = RepairPlan.of(spark, checkpoint(), args.getLong(1));
    String backup =
        dryRun || plan.steps().isEmpty() ? null : Repair.apply(spark, plan, args.getBoolean(2));
    List<Object[]> rows = new ArrayList<>();
    for (RepairPlan.Step step : plan.steps()) {
      rows.add(new Object[] {step.action(), step.file(), step.why()});
    }
    for (Finding f : plan.byHand()) {
      rows.add(new Object[] {"by hand", f.file(), f.check() + ": " + f.message() + " " + f.fix()});
    }
    String summary =
        plan.summary()
            + (dryRun
                ? " (dry run: nothing was changed)"
                : backup == null
                    ? ""
                    : "; what it changed is kept in " + backup + " (undo: repair --undo)");
    rows.add(new Object[] {"summary", null, summary});
    return rows;
  }
}
