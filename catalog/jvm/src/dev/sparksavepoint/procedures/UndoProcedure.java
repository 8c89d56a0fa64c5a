package dev.sparksavepoint.procedures;

import dev.sparksavepoint.actions.UndoEdit;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.undo([batch_id, force, dry_run])}: takes edit batch {@code
 * batch_id} (default: the last edit) back by committing its inverse as a new batch ({@link
 * UndoEdit}). One row per statement of the inverse (with {@code dry_run}, what it would change),
 * then a last row without a statement: the commit, the dry run, or that the edit changed no state
 * table. {@code batch_id} is the edit batch undone, on every row.
 */
final class UndoProcedure extends ActionProcedure {
  static final String NO_STATE_CHANGED =
      "edit batch %d changed no state table (it edited the query's logs: source positions, seen"
          + " files or the watermark, which undo does not take back): nothing was written";

  UndoProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "undo",
        "Takes an edit back: its inverse committed as a new batch (later batches stay).",
        ReportRows.STATEMENTS,
        in("batch_id", DataTypes.LongType, "-1"),
        in("force", DataTypes.BooleanType, "false"),
        in("dry_run", DataTypes.BooleanType, "false"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    Long batch = args.getLong(0) < 0 ? null : args.getLong(0);
    UndoEdit.Result done =
        UndoEdit.run(spark, checkpoint(), batch, args.getBoolean(1), args.getBoolean(2));
    return ReportRows.statements(
        done.batchId(), done.statements(), done.outcome(), NO_STATE_CHANGED);
  }
}
