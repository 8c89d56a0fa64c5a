package dev.sparksavepoint.upgrade;

import dev.sparksavepoint.adapters.FirstBatches;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.python.PythonUtils;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.streaming.StreamingRelationV2;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.streaming.checkpointing.OffsetSeqMetadata;
import org.apache.spark.sql.execution.streaming.operators.stateful.StateStoreWriter;
import org.apache.spark.sql.execution.streaming.runtime.IncrementalExecution;
import org.apache.spark.sql.execution.streaming.runtime.StreamingRelation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.streaming.OutputMode;

/**
 * The stateful operators of a streaming query that has not run, planned as Spark plans the
 * first batch of a (re)started query, without reading any input: its {@link
 * IncrementalExecution} with the confs a checkpoint recorded (shuffle partitions, provider,
 * state format versions) writes each operator's metadata and state schema files, exactly as
 * Spark would, into a scratch checkpoint (a local temporary folder with batch 0 planned and
 * committed; {@link #delete} removes it). The scratch checkpoint then reads like any other
 * (operators, stores, schemas), and {@link #nodes} keeps the planned operator nodes (for
 * aggregate buffers' initial values).
 *
 * <p>Example: {@code PlannedQuery.plan(spark, newDf, "update", oldCheckpoint)}.
 */
public final class PlannedQuery {
  private final Checkpoint scratch;
  private final Map<Long, SparkPlan> nodes;
  private final int sources;
  private final SparkPlan executed;

  private PlannedQuery(
      Checkpoint scratch, Map<Long, SparkPlan> nodes, int sources, SparkPlan executed) {
    this.scratch = scratch;
    this.nodes = nodes;
    this.sources = sources;
    this.executed = executed;
  }

  /** The executed plan of the query's first batch. */
  public SparkPlan executed() {
    return executed;
  }

  /** How many sources the query reads (Spark numbers them in this order: sources/0, 1, ...). */
  public int sources() {
    return sources;
  }

  /** The scratch checkpoint: batch 0 planned and committed, its operators' schemas written. */
  public Checkpoint scratch() {
    return scratch;
  }

  /** Removes the scratch checkpoint. */
  public void delete() {
    try {
      scratch.fileSystem().delete(scratch.root(), true);
    } catch (IOException e) {
      throw Errors.io(scratch.location(), e);
    }
  }

  /** The planned stateful operator nodes by operator id. */
  public Map<Long, SparkPlan> nodes() {
    return nodes;
  }

  /**
   * Plans {@code query} (a streaming Dataset) in output mode {@code outputMode} (append,
   * update or complete) with the confs {@code old} recorded at its last batch.
   */
  public static PlannedQuery plan(
      SparkSession spark, Dataset<Row> query, String outputMode, Checkpoint old) {
    if (!query.isStreaming()) {
      throw Errors.badArguments(
          old.location(),
          "The new query is not a streaming query: build" + " it with spark.readStream");
    }
    long last = old.lastCommitted();
    Map<String, String> recorded = old.recordedConf(last);
    SparkSession session = spark.cloneSession();
    SQLConf conf = session.sessionState().conf();
    recorded.forEach(conf::setConfString);
    java.nio.file.Path folder;
    try {
      folder = Files.createTempDirectory("spark-savepoint-plan-");
      java.io.File scratch = folder.toFile();
      // used by the caller for as long as it keeps the plan: removed when the JVM ends
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(() -> org.apache.commons.io.FileUtils.deleteQuietly(scratch)));
    } catch (IOException e) {
      throw Errors.io(old.location(), e);
    }
    String root = folder.toUri().toString();
    Configuration hadoopConf = spark.sessionState().newHadoopConf();
    try {
      Path logs = new Path(root);
      CheckpointFiles.writeNew(
          new Path(logs, CheckpointLog.OFFSETS + "/0"), old.offsetLog().bytes(last), hadoopConf);
      CheckpointFiles.writeNew(new Path(logs, Checkpoint.PLANNED_FILE), new byte[0], hadoopConf);
      CheckpointFiles.writeNew(
          new Path(logs, CheckpointLog.COMMITS + "/0"),
          "v1\n{\"nextBatchWatermarkMs\":0}".getBytes(StandardCharsets.UTF_8),
          hadoopConf);
    } catch (IOException e) {
      throw Errors.io(old.location(), e);
    }
    OffsetSeqMetadata metadata =
        new OffsetSeqMetadata(0L, 0L, PythonUtils.toScalaMap(new HashMap<>(recorded)));
    IncrementalExecution execution =
        FirstBatches.plan(
            session,
            query.queryExecution().logical(),
            mode(old.location(), outputMode),
            new Path(root, "state").toString(),
            old.queryId(),
            metadata);
    Map<Long, SparkPlan> nodes = new HashMap<>();
    SparkPlan executed = execution.executedPlan();
    for (SparkPlan node : collect(executed)) {
      StateStoreWriter writer = (StateStoreWriter) node;
      nodes.putIfAbsent(writer.getStateInfo().operatorId(), node);
    }
    int sources = countSources(query.queryExecution().logical());
    return new PlannedQuery(Checkpoint.open(root, hadoopConf), nodes, sources, executed);
  }

  /** The distinct streaming relations of {@code plan}: the sources Spark numbers. */
  private static int countSources(LogicalPlan plan) {
    java.util.Set<LogicalPlan> found = new java.util.HashSet<>();
    collectSources(plan, found);
    return found.size();
  }

  private static void collectSources(LogicalPlan plan, java.util.Set<LogicalPlan> found) {
    if (plan instanceof StreamingRelation || plan instanceof StreamingRelationV2) {
      found.add(plan);
      return;
    }
    scala.collection.Iterator<LogicalPlan> children = plan.children().iterator();
    while (children.hasNext()) collectSources(children.next(), found);
  }

  private static List<SparkPlan> collect(SparkPlan plan) {
    List<SparkPlan> found = new ArrayList<>();
    if (plan instanceof StateStoreWriter) found.add(plan);
    scala.collection.Iterator<SparkPlan> children = plan.children().iterator();
    while (children.hasNext()) found.addAll(collect(children.next()));
    return found;
  }

  private static OutputMode mode(String location, String outputMode) {
    return switch (outputMode.toLowerCase(java.util.Locale.ROOT)) {
      case "append" -> OutputMode.Append();
      case "update" -> OutputMode.Update();
      case "complete" -> OutputMode.Complete();
      default ->
          throw Errors.badArguments(
              location, "Unknown output mode '" + outputMode + "': use append, update or complete");
    };
  }
}
