package dev.sparksavepoint.sql;

import dev.sparksavepoint.adapters.MergePlans;
import dev.sparksavepoint.adapters.Relations;
import dev.sparksavepoint.catalog.FlatStateTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable;
import org.apache.spark.sql.catalyst.plans.logical.UpdateTable;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractPartialFunction;

/**
 * An analyzer rule that lets Spark resolve {@code UPDATE} and {@code MERGE INTO} on a state
 * table like on any other table. A state table accepts any schema, so that its INSERT checks the
 * given columns itself ({@code write.IncomingColumns}: no lossy cast, exact key types); but Spark
 * neither resolves nor aligns the assignments of row-level commands on such tables. The target
 * of these two commands is therefore the table's row-level twin
 * ({@link FlatStateTable#forRowLevelCommands}): Spark resolves the statement, aligns and casts
 * its assignments by its store assignment policy (ANSI by default: no string into a number, an
 * overflow fails when the statement runs), and runs it as a copy-on-write replace of the state
 * ({@code write.StateRewrite}), which writes only the entries that changed, as one new batch.
 * A condition may name the metadata column {@code partition_id}.
 */
public final class RowLevelStateCommands extends Rule<LogicalPlan> {
  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (plan instanceof UpdateTable u) {
      LogicalPlan target = twin(u.table(), u.references());
      return target == u.table() ? plan : u.copy(target, u.assignments(), u.condition());
    }
    if (plan instanceof MergeIntoTable m) {
      LogicalPlan target = twin(m.targetTable(), m.references());
      return target == m.targetTable() ? plan : MergePlans.withTarget(m, target);
    }
    return plan;
  }

  /**
   * {@code target} with its state table relation (under any aliases) swapped for the twin; the
   * same object when there is none to swap (already the twin, or another table). The metadata
   * columns the command already {@code referenced} stay in the twin's output: the twin's own
   * would be new attributes.
   */
  private static LogicalPlan twin(LogicalPlan target, AttributeSet referenced) {
    return target.transformUp(
        new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
          @Override
          public boolean isDefinedAt(LogicalPlan node) {
            return node instanceof DataSourceV2Relation r
                && r.table() instanceof FlatStateTable t
                && !t.isRowLevelTwin();
          }

          @Override
          public LogicalPlan apply(LogicalPlan node) {
            if (!isDefinedAt(node)) return node;
            DataSourceV2Relation r = (DataSourceV2Relation) node;
            List<AttributeReference> output =
                new ArrayList<>(CollectionConverters.asJava(r.output()));
            for (AttributeReference column : CollectionConverters.asJava(r.metadataOutput())) {
              if (referenced.contains(column) && !output.contains(column)) output.add(column);
            }
            return Relations.withTable(
                r,
                ((FlatStateTable) r.table()).forRowLevelCommands(),
                CollectionConverters.asScala(output).toSeq());
          }
        });
  }
}
