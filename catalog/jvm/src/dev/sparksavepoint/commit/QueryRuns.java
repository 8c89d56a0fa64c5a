package dev.sparksavepoint.commit;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.runtime.StreamingQueryWrapper;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming query listener the tool's settings install
 * ({@code spark.sql.streaming.streamingQueryListeners}; {@code session()}, {@code attach()},
 * {@code spark-savepoint conf}). For every query of the session it keeps a record in the
 * query's checkpoint ({@link RunRecords}): written when the run starts (Spark calls this
 * listener synchronously before the run plans its first batch), renewed while it runs, marked
 * stopped with its last committed batch when it stops. So an edit in any application on any
 * host can tell a running query (refused) from one that stopped (no need to wait, no need to
 * force) ({@link QueryActivity}). It also remembers in memory when this driver's queries
 * stopped. A record that cannot be written is logged and never fails the query.
 */
public final class QueryRuns extends StreamingQueryListener {
  private static final Logger LOG = LoggerFactory.getLogger("dev.sparksavepoint.runs");
  private static final long RUNNING = Long.MAX_VALUE;

  /** How long a write waits for a just-stopped query's termination event. */
  static final long EVENT_WAIT_MS = 5_000;

  /** Query id -> when this driver saw its last run stop (epoch ms), or RUNNING. */
  private static final Map<UUID, Long> STOPPED_AT = new ConcurrentHashMap<>();

  /** The runs of this driver that keep a record: run id -> where, and its renewal. */
  private static final Map<UUID, Recorded> RECORDED = new ConcurrentHashMap<>();

  private static volatile ScheduledExecutorService renewals;

  /** A run whose record this driver keeps. */
  private record Recorded(
      Path root,
      FileSystem fs,
      Configuration conf,
      RunRecords.Run run,
      ScheduledFuture<?> renewal) {}

  /**
   * When this driver saw the query with this id (as in a checkpoint's metadata file) stop, or
   * null when this driver has not run it or cannot tell.
   */
  static Long stoppedAt(UUID queryId) {
    Long stopped = STOPPED_AT.get(queryId);
    if (stopped != null && stopped == RUNNING) {
      // stop() has returned, but Spark delivers the termination event asynchronously
      try {
        SparkContext.getOrCreate().listenerBus().waitUntilEmpty(EVENT_WAIT_MS);
      } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
        return null;
      }
      stopped = STOPPED_AT.get(queryId);
    }
    return stopped == null || stopped == RUNNING ? null : stopped;
  }

  @Override
  public void onQueryStarted(QueryStartedEvent event) {
    STOPPED_AT.put(event.id(), RUNNING);
    try {
      record(event.id(), event.runId());
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "spark-savepoint: could not record that query "
              + event.id()
              + " runs (edits"
              + " of its checkpoint fall back to guessing from its batch times): "
              + e);
    }
  }

  @Override
  public void onQueryProgress(QueryProgressEvent event) {}

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {
    STOPPED_AT.put(event.id(), System.currentTimeMillis());
    Recorded recorded = RECORDED.remove(event.runId());
    if (recorded == null) return;
    recorded.renewal().cancel(false);
    synchronized (recorded) { // after a renewal that is under way, never before it
      recordStop(event, recorded);
    }
  }

  private static void recordStop(QueryTerminatedEvent event, Recorded recorded) {
    try {
      RunRecords.Run stopped =
          recorded.run().stopped(lastCommitted(recorded.fs(), recorded.root()));
      RunRecords.write(recorded.fs(), recorded.root(), stopped, recorded.conf(), false);
    } catch (IOException | RuntimeException e) {
      LOG.warn("spark-savepoint: could not record that query " + event.id() + " stopped: " + e);
    }
  }

  /** Writes the run's first record and schedules its renewals. */
  private static void record(UUID queryId, UUID runId) throws IOException {
    SparkSession spark = (SparkSession) SparkSession.active();
    StreamingQuery query = spark.streams().get(queryId);
    if (!(query instanceof StreamingQueryWrapper wrapper)) return;
    Path root = new Path(wrapper.streamingQuery().resolvedCheckpointRoot());
    Configuration conf = spark.sessionState().newHadoopConf();
    FileSystem fs = root.getFileSystem(conf);
    RunRecords.Run run = RunRecords.Run.starting(queryId, runId);
    RunRecords.removeEnded(fs, root, runId);
    RunRecords.write(fs, root, run, conf, true);
    ScheduledFuture<?> renewal =
        renewals()
            .scheduleWithFixedDelay(
                () -> renew(runId),
                RunRecords.RENEW_MS,
                RunRecords.RENEW_MS,
                TimeUnit.MILLISECONDS);
    RECORDED.put(runId, new Recorded(root, fs, conf, run, renewal));
  }

  private static void renew(UUID runId) {
    Recorded recorded = RECORDED.get(runId);
    if (recorded == null) return;
    synchronized (recorded) {
      if (RECORDED.containsKey(runId)) renew(recorded);
    }
  }

  private static void renew(Recorded recorded) {
    RunRecords.Run run = recorded.run();
    try {
      RunRecords.write(recorded.fs(), recorded.root(), run.renewed(), recorded.conf(), false);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "spark-savepoint: could not renew the record of query run " + run.runId() + ": " + e);
    }
  }

  private static long lastCommitted(FileSystem fs, Path root) throws IOException {
    var entries = new CheckpointLog(fs, root, CheckpointLog.COMMITS).entries();
    return entries.isEmpty() ? -1 : entries.lastKey();
  }

  private static ScheduledExecutorService renewals() {
    if (renewals == null) {
      synchronized (QueryRuns.class) {
        if (renewals == null) {
          renewals =
              Executors.newSingleThreadScheduledExecutor(
                  task -> {
                    Thread thread = new Thread(task, "spark-savepoint-query-runs");
                    thread.setDaemon(true);
                    return thread;
                  });
        }
      }
    }
    return renewals;
  }
}
