package dev.sparksavepoint;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.streaming.StreamingQueryListener;

/**
 * Remembers the ids of the streaming queries this driver has started. A query started here
 * that no session of this driver runs any more has stopped: a write to its checkpoint then
 * needs no guess about whether the query is still alive ({@link QueryActivity}). Registered
 * through {@code spark.sql.streaming.streamingQueryListeners} (set by {@code sql_ext.session()}
 * and {@code spark-savepoint conf}); Spark delivers the start event synchronously.
 */
public final class QueryRuns extends StreamingQueryListener {
  private static final Set<UUID> STARTED = ConcurrentHashMap.newKeySet();

  /** True when a query with this id (as in a checkpoint's metadata file) ran in this driver. */
  static boolean startedHere(UUID queryId) {
    return STARTED.contains(queryId);
  }

  @Override
  public void onQueryStarted(QueryStartedEvent event) {
    STARTED.add(event.id());
  }

  @Override
  public void onQueryProgress(QueryProgressEvent event) {}

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {}
}
