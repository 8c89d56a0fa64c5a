package dev.sparksavepoint.commit;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.conf.Settings;
import dev.sparksavepoint.errors.Errors;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.runtime.StreamingQueryWrapper;

/**
 * Refuses a write while the checkpoint's streaming query may be running. Spark holds no lock
 * on a checkpoint, so this detects what it can:
 *
 * <ol>
 *   <li>a query of this session runs on the checkpoint: refused, always;
 *   <li>this driver ran the query (by the id in the checkpoint's metadata file) and saw it
 *       stop after its last batch: it is stopped, the write goes ahead;
 *   <li>otherwise the query looks alive when its last batch was committed more recently than
 *       twice its usual interval between batches plus that batch's duration (from the batch
 *       timestamps of the offset log and the commit log's file times; at least
 *       {@link #MIN_WINDOW_MS}, at most {@link #MAX_WINDOW_MS}). Batches made by this tool
 *       (with a claim file, or keeping their predecessor's batch timestamp) are not query
 *       activity.
 * </ol>
 *
 * The write option {@code force=true} or the SQL conf {@code spark.savepoint.write.force} skips the
 * guess (not check 1). Limits: a query that runs but has had no input for longer than the window
 * looks stopped (its next batch then fails: the edit holds the batch id it would take), and file
 * times of a remote file system are compared with this machine's clock.
 */
public final class QueryActivity {
  static final long MIN_WINDOW_MS = 5_000;
  static final long MAX_WINDOW_MS = 600_000;

  /** Batches looked at to learn the query's usual interval. */
  static final int HISTORY = 10;

  private QueryActivity() {}

  /**
   * The gate of every edit: throws SAVEPOINT_QUERY_RUNNING or SAVEPOINT_QUERY_ALIVE when the
   * query may run, and SAVEPOINT_CORRUPT_FILE when the checkpoint's {@code metadata} is damaged
   * (a restart would fail: an edit would only add to it).
   */
  public static void check(
      SparkSession spark, Checkpoint ckpt, String uid, String state, boolean force) {
    ckpt.checkMetadata();
    String running = runningHere(spark, ckpt);
    if (running != null) throw Errors.queryRunning(ckpt.location(), uid, state, running);
    if (force
        || spark
            .sessionState()
            .conf()
            .getConfString(Settings.WRITE_FORCE, "false")
            .equalsIgnoreCase("true")) {
      return;
    }
    String alive = aliveElsewhere(ckpt);
    if (alive != null) {
      throw Errors.queryAlive(ckpt.location(), uid, state, alive, Settings.WRITE_FORCE);
    }
  }

  /**
   * Why the checkpoint's query runs now, from evidence only: a query of this session runs on
   * it, or a run record of the tool's listener is alive. Null otherwise; the guess from batch
   * times that guards edits is left out, as a copied or freshly checked-out checkpoint has new
   * file times. What the doctor reports.
   */
  public static String activity(SparkSession spark, Checkpoint ckpt) {
    String running = runningHere(spark, ckpt);
    if (running != null) return "streaming query " + running + " of this session is running on it";
    return aliveRun(ckpt, runs(ckpt));
  }

  /** The name (or id) of a query of this session running on the checkpoint, or null. */
  private static String runningHere(SparkSession spark, Checkpoint ckpt) {
    String target = ckpt.fileSystem().makeQualified(ckpt.root()).toString();
    for (var query : spark.streams().active()) {
      if (query instanceof StreamingQueryWrapper w
          && new Path(w.streamingQuery().resolvedCheckpointRoot()).toString().equals(target)) {
        return query.name() == null ? query.id().toString() : query.name();
      }
    }
    return null;
  }

  private static List<RunRecords.Run> runs(Checkpoint ckpt) {
    try {
      return RunRecords.read(ckpt.fileSystem(), ckpt.root());
    } catch (java.io.IOException e) {
      throw Errors.io(ckpt.location(), e);
    }
  }

  /** Why a run record says the query runs, or null. */
  private static String aliveRun(Checkpoint ckpt, List<RunRecords.Run> runs) {
    long now = System.currentTimeMillis();
    for (RunRecords.Run run : runs) {
      if (run.alive(now)) {
        return "it runs: "
            + run.describe(now)
            + "; a run counts as alive until it stops or is not heard from for "
            + RunRecords.seconds(run.leaseMs());
      }
    }
    return null;
  }

  /** Why the query looks alive from its run records and batch times, or null. */
  private static String aliveElsewhere(Checkpoint ckpt) {
    List<RunRecords.Run> runs = runs(ckpt);
    String alive = aliveRun(ckpt, runs);
    if (alive != null) return alive;
    Activity activity = Activity.of(ckpt);
    if (activity == null) return null;
    UUID id = ckpt.queryId();
    for (RunRecords.Run run : runs) {
      // a stop proves nothing about another query's batches (a metadata file replaced since)
      if (run.of(id) && run.stopped() && run.lastBatch() >= activity.batchId()) return null;
    }
    Long stopped = id == null ? null : QueryRuns.stoppedAt(id);
    if (stopped != null && activity.committedMs() <= stopped) return null;
    return activity.age() < activity.window() ? activity.describe() : null;
  }

  /** The query's last batch, when it was committed, and how often it commits batches. */
  record Activity(long batchId, long committedMs, long intervalMs, long window) {
    long age() {
      return System.currentTimeMillis() - committedMs;
    }

    static Activity of(Checkpoint ckpt) {
      java.util.Set<Long> edits;
      try {
        edits = EditClaim.claimedBatches(ckpt.fileSystem(), ckpt.root());
      } catch (java.io.IOException e) {
        throw Errors.io(ckpt.location(), e);
      }
      List<Long> batches = ckpt.committedBatches();
      batches.removeAll(edits);
      List<Long> recent =
          batches.subList(Math.max(0, batches.size() - HISTORY - 1), batches.size());
      List<long[]> queryBatches = new ArrayList<>(); // [batch id, batch timestamp]
      for (long batch : recent) {
        long timestamp = ckpt.batchTimestampMs(batch);
        if (!madeByTool(ckpt, batch, timestamp)) queryBatches.add(new long[] {batch, timestamp});
      }
      if (queryBatches.isEmpty()) return null;
      long[] last = queryBatches.get(queryBatches.size() - 1);
      List<Long> intervals = new ArrayList<>();
      for (int i = 1; i < queryBatches.size(); i++) {
        intervals.add(queryBatches.get(i)[1] - queryBatches.get(i - 1)[1]);
      }
      Collections.sort(intervals);
      long interval = intervals.isEmpty() ? 0 : intervals.get(intervals.size() / 2);
      long committed = ckpt.commitTimeMs(last[0]);
      long duration = last[1] > 0 ? Math.max(0, committed - last[1]) : 0;
      long window = Math.min(MAX_WINDOW_MS, Math.max(MIN_WINDOW_MS, 2 * interval + duration));
      return new Activity(last[0], committed, interval, window);
    }

    /**
     * True when {@code batch} is the tool's, not the query's: its commit carries an edit's id
     * ({@link EditToken}; also in a restored savepoint, which has no claim files), or it keeps
     * the batch timestamp of the batch planned before it (an edit copies offsets/N).
     */
    private static boolean madeByTool(Checkpoint ckpt, long batch, long timestamp) {
      try {
        String edit = EditToken.of(ckpt.fileSystem(), ckpt.root(), batch);
        if (edit != null && !edit.isEmpty()) return true;
      } catch (java.io.IOException e) {
        // unreadable: judged by its timestamp
      }
      if (batch == 0 || ckpt.lastPlanned() < batch - 1) return false;
      try {
        return ckpt.batchTimestampMs(batch - 1) == timestamp;
      } catch (RuntimeException e) {
        return false; // offsets/b-1 is gone (purged): a query's batch as far as we know
      }
    }

    String describe() {
      return "its last batch "
          + batchId
          + " was committed "
          + RunRecords.seconds(age())
          + " ago ("
          + Instant.ofEpochMilli(committedMs)
          + ")"
          + (intervalMs > 0
              ? ", and it has committed" + " a batch about every " + RunRecords.seconds(intervalMs)
              : "")
          + ": it counts as alive for "
          + RunRecords.seconds(window)
          + " after a batch";
    }
  }
}
