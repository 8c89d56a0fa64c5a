package dev.sparksavepoint.adapters;

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable;

/** A MERGE plan rebuilt: Spark 4.0 and later (with schema evolution). */
public final class MergePlans {
  private MergePlans() {}

  /** {@code merge} into {@code target}, the rest kept. */
  public static MergeIntoTable withTarget(MergeIntoTable merge, LogicalPlan target) {
    return merge.copy(
        target,
        merge.sourceTable(),
        merge.mergeCondition(),
        merge.matchedActions(),
        merge.notMatchedActions(),
        merge.notMatchedBySourceActions(),
        merge.withSchemaEvolution());
  }
}
