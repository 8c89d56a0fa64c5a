package dev.sparksavepoint.sql;

import dev.sparksavepoint.checkpoint.KeyPlacement;
import dev.sparksavepoint.checkpoint.RecordedPartitioning;
import dev.sparksavepoint.checkpoint.ValueNames;
import dev.sparksavepoint.upgrade.QueryNames;
import dev.sparksavepoint.upgrade.QueryPartitioning;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.runtime.IncrementalExecution;
import org.apache.spark.sql.execution.streaming.runtime.QueryExecutionThread;
import org.apache.spark.sql.execution.streaming.runtime.StreamExecution;
import org.apache.spark.sql.execution.streaming.runtime.StreamingQueryWrapper;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records, in the checkpoint of each streaming query this driver runs, the query's names for
 * its aggregations' value columns ({@link ValueNames}: {@code _savepoint/value-names.json}), so
 * that a catalog on the checkpoint shows {@code cnt} and {@code total} instead of Spark's buffer
 * names {@code count} and {@code sum} without being given the query; and, for a query run
 * without the strict distribution, the columns that place its operators' keys
 * ({@link RecordedPartitioning}), so that writes need not be told them. The names come from the
 * plan of the query's first batch ({@link QueryNames}), on its first progress event; the file is
 * rewritten only when they changed. A failure is logged and never reaches the query.
 *
 * <p>Registered through {@code spark.sql.streaming.streamingQueryListeners} (set by
 * {@code sql_ext.session()} and {@code spark-savepoint conf}) or by {@link LateInstall}.
 */
public final class ValueNamesListener extends StreamingQueryListener {
  private static final Logger LOG = LoggerFactory.getLogger(ValueNamesListener.class);

  /** Queries that have not recorded yet, by run id. */
  private final Map<UUID, StreamExecution> waiting = new ConcurrentHashMap<>();

  @Override
  public void onQueryStarted(QueryStartedEvent event) {
    try {
      StreamExecution query = execution(event.id());
      if (query == null) return;
      waiting.put(event.runId(), query);
      ValueNames.expect(root(query));
    } catch (RuntimeException | ReflectiveOperationException e) {
      LOG.warn(
          "Cannot follow query {} to record its value column names: {}", event.id(), e.toString());
    }
  }

  @Override
  public void onQueryProgress(QueryProgressEvent event) {
    UUID run = event.progress().runId();
    StreamExecution query = waiting.get(run);
    if (query == null || query.lastExecution() == null) return; // idle: no batch planned yet
    waiting.remove(run);
    try {
      record(query, query.lastExecution());
    } catch (Exception e) {
      LOG.warn(
          "Could not record the value column names of query {} in checkpoint '{}': {}",
          query.id(),
          query.resolvedCheckpointRoot(),
          e.toString());
    } finally {
      ValueNames.settled(root(query));
    }
  }

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {
    StreamExecution query = waiting.remove(event.runId());
    if (query != null) ValueNames.settled(root(query));
  }

  private static void record(StreamExecution query, IncrementalExecution batch) throws IOException {
    Configuration conf = query.sparkSession().sessionState().newHadoopConf();
    Map<Long, ValueNames.Columns> columns = QueryNames.of(batch.executedPlan());
    if (!columns.isEmpty() && ValueNames.record(root(query), columns, conf)) {
      LOG.info(
          "Recorded the value column names of query {} in {}/{}: {}",
          query.id(),
          query.resolvedCheckpointRoot(),
          ValueNames.FILE,
          columns);
    }
    if (strictDistribution(batch)) return;
    Map<Long, List<String>> placing = QueryPartitioning.of(batch.executedPlan());
    if (!placing.isEmpty() && RecordedPartitioning.record(root(query), placing, conf)) {
      LOG.info(
          "Recorded the input partitioning of query {} in {}/{}: {}",
          query.id(),
          query.resolvedCheckpointRoot(),
          RecordedPartitioning.FILE,
          placing);
    }
  }

  /** True when the batch runs with the strict distribution (every query since Spark 3.3). */
  private static boolean strictDistribution(IncrementalExecution batch) {
    scala.Option<String> strict = batch.offsetSeqMetadata().conf().get(KeyPlacement.STRICT_CONF);
    return strict.isDefined() && Boolean.parseBoolean(strict.get());
  }

  /** The query's checkpoint folder, qualified (as Spark resolved it). */
  private static Path root(StreamExecution query) {
    return new Path(query.resolvedCheckpointRoot());
  }

  /**
   * The running query {@code id}. Spark posts the start event on the query's own thread, which
   * its {@link StreamExecution} made (the query's session is not the thread's active one when
   * another session started it); where that thread is not Spark's, the active session's query.
   */
  private static StreamExecution execution(UUID id) throws ReflectiveOperationException {
    Thread thread = Thread.currentThread();
    if (thread instanceof QueryExecutionThread) {
      for (Field field : thread.getClass().getDeclaredFields()) {
        if (StreamExecution.class.isAssignableFrom(field.getType())) {
          field.setAccessible(true);
          return (StreamExecution) field.get(thread);
        }
      }
    }
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    StreamingQuery query = active.isDefined() ? active.get().streams().get(id) : null;
    return query instanceof StreamingQueryWrapper wrapper ? wrapper.streamingQuery() : null;
  }
}
