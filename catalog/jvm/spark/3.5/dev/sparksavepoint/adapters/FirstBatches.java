package dev.sparksavepoint.adapters;

import java.util.UUID;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.streaming.StreamingRelationV2;
import org.apache.spark.sql.execution.streaming.IncrementalExecution;
import org.apache.spark.sql.execution.streaming.OffsetSeqMetadata;
import org.apache.spark.sql.execution.streaming.StreamingRelation;
import org.apache.spark.sql.execution.streaming.WatermarkPropagator;
import org.apache.spark.sql.streaming.OutputMode;
import scala.Option;
import scala.collection.immutable.List$;
import scala.runtime.AbstractPartialFunction;

/**
 * A query planned as its first batch would be: Spark 3.5, whose {@code IncrementalExecution}
 * is not told which batch is the first, and whose planning writes no state schema file (4.0's
 * does): the plan is also run once on no input, so that its stateful operators write their
 * schema files (and an empty first version) under the state folder, as a first batch would.
 */
public final class FirstBatches {
  private FirstBatches() {}

  /**
   * The incremental execution of {@code logical} as batch 0 of query {@code queryId}, its state
   * under {@code stateRoot}, with the confs of {@code metadata}.
   */
  public static IncrementalExecution plan(
      SparkSession session,
      LogicalPlan logical,
      OutputMode mode,
      String stateRoot,
      UUID queryId,
      OffsetSeqMetadata metadata) {
    IncrementalExecution empty =
        execution(session, withoutInput(logical), mode, stateRoot, queryId, metadata);
    empty.executedPlan().execute().count();
    return execution(session, logical, mode, stateRoot, queryId, metadata);
  }

  private static IncrementalExecution execution(
      SparkSession session,
      LogicalPlan logical,
      OutputMode mode,
      String stateRoot,
      UUID queryId,
      OffsetSeqMetadata metadata) {
    return new IncrementalExecution(
        session,
        logical,
        mode,
        stateRoot,
        queryId,
        UUID.randomUUID(),
        0L,
        Option.empty(),
        metadata,
        WatermarkPropagator.noop());
  }

  /** {@code logical} with each streaming source an empty relation (a batch with no new data). */
  private static LogicalPlan withoutInput(LogicalPlan logical) {
    return logical.transform(
        new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
          @Override
          public boolean isDefinedAt(LogicalPlan node) {
            return node instanceof StreamingRelation || node instanceof StreamingRelationV2;
          }

          @Override
          public LogicalPlan apply(LogicalPlan node) {
            return new LocalRelation(node.output(), List$.MODULE$.empty(), true);
          }
        });
  }
}
