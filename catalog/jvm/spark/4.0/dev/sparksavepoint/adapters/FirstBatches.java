package dev.sparksavepoint.adapters;

import java.util.UUID;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.checkpointing.OffsetSeqMetadata;
import org.apache.spark.sql.execution.streaming.runtime.IncrementalExecution;
import org.apache.spark.sql.execution.streaming.runtime.WatermarkPropagator;
import org.apache.spark.sql.streaming.OutputMode;
import scala.Option;

/**
 * A query planned as its first batch would be: Spark 4.0 and later, whose {@code
 * IncrementalExecution} is told it is the first batch (and takes defaults for what later
 * versions added, {@link ScalaDefaults}).
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
    return ScalaDefaults.construct(
        IncrementalExecution.class,
        session,
        logical,
        mode,
        stateRoot,
        queryId,
        UUID.randomUUID(),
        0L,
        Option.empty(),
        metadata,
        WatermarkPropagator.noop(),
        true);
  }
}
