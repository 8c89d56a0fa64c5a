package dev.sparksavepoint.commit;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.streaming.StreamingQueryListener;

/**
 * Remembers when the streaming queries this driver ran stopped. A write to the checkpoint of
 * such a query, whose last batch was committed before that stop, needs no guess about whether
 * the query is still alive ({@link QueryActivity}). Registered through
 * {@code spark.sql.streaming.streamingQueryListeners} (set by {@code sql_ext.session()} and
 * {@code spark-savepoint conf}).
 */
public final class QueryRuns extends StreamingQueryListener {
  private static final long RUNNING = Long.MAX_VALUE;
  /** How long a write waits for a just-stopped query's termination event. */
  static final long EVENT_WAIT_MS = 5_000;
  /** Query id -> when this driver saw its last run stop (epoch ms), or RUNNING. */
  private static final Map<UUID, Long> STOPPED_AT = new ConcurrentHashMap<>();

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
  }

  @Override
  public void onQueryProgress(QueryProgressEvent event) {}

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {
    STOPPED_AT.put(event.id(), System.currentTimeMillis());
  }
}
