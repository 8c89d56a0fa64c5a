package dev.sparksavepoint.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What a streaming query run with the tool's listener ({@link QueryRuns}) records in its
 * checkpoint: {@code _savepoint/runs/<runId>.json}, written when the run starts (before its
 * first batch is planned: Spark calls the listener synchronously then), renewed every
 * {@link #RENEW_MS} while it runs (a lease of {@link #LEASE_MS}), and marked stopped with the
 * last committed batch when it stops. An edit reads them ({@link QueryActivity}): a run whose
 * lease is fresh is alive, one marked stopped proves its batches were not the last word of a
 * running query, one whose lease lapsed without a stop crashed.
 *
 * <pre>
 *   {"queryId":"...","runId":"...","host":"h","pid":7,"processStartedMs":...,
 *    "startedMs":...,"renewedMs":...,"leaseMs":60000,"stoppedMs":...,"lastBatch":12}
 * </pre>
 */
public final class RunRecords {
  public static final String FOLDER = "_savepoint/runs";

  /** How long a run counts as alive after its last renewal. */
  static final long LEASE_MS = 60_000;

  /** How often a running query's driver renews its record. */
  static final long RENEW_MS = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private RunRecords() {}

  /**
   * One run's record. {@code stoppedMs} -1 while it runs; {@code lastBatch} -1 if unknown;
   * {@code queryId} and {@code runId} null when the record is damaged.
   */
  record Run(
      UUID queryId,
      UUID runId,
      WriterProcess driver,
      long startedMs,
      long renewedMs,
      long leaseMs,
      long stoppedMs,
      long lastBatch) {
    /** A run that starts now in this process. */
    static Run starting(UUID queryId, UUID runId) {
      long now = System.currentTimeMillis();
      return new Run(queryId, runId, WriterProcess.current(), now, now, LEASE_MS, -1, -1);
    }

    /** This run, heard from now. */
    Run renewed() {
      return new Run(
          queryId, runId, driver, startedMs, System.currentTimeMillis(), leaseMs, -1, -1);
    }

    /** This run, stopped now after committing batch {@code last}. */
    Run stopped(long last) {
      long now = System.currentTimeMillis();
      return new Run(queryId, runId, driver, startedMs, now, leaseMs, now, last);
    }

    /** True when this is a run of the query with id {@code id} (null: any query). */
    boolean of(UUID id) {
      return id == null || id.equals(queryId);
    }

    boolean stopped() {
      return stoppedMs >= 0;
    }

    /** Running, its lease not lapsed (at {@code now}), and its driver not provably gone. */
    boolean alive(long now) {
      return !stopped() && now - renewedMs < leaseMs && !driver.isGone();
    }

    String describe(long now) {
      return "run "
          + runId
          + " since "
          + Instant.ofEpochMilli(startedMs)
          + ", in the driver "
          + driver.describe()
          + ", last heard from "
          + seconds(now - renewedMs)
          + " ago";
    }

    ObjectNode toJson() {
      ObjectNode json = JSON.createObjectNode();
      json.put("queryId", String.valueOf(queryId)).put("runId", String.valueOf(runId));
      driver.writeTo(json);
      json.put("startedMs", startedMs).put("renewedMs", renewedMs).put("leaseMs", leaseMs);
      if (stopped()) json.put("stoppedMs", stoppedMs).put("lastBatch", lastBatch);
      return json;
    }

    static Run fromJson(JsonNode json, long fileTimeMs) {
      // the later of the driver's and the store's clock: a lease never ends early
      long renewed = Math.max(json.path("renewedMs").asLong(0), fileTimeMs);
      return new Run(
          UUID.fromString(json.path("queryId").asText()),
          UUID.fromString(json.path("runId").asText()),
          WriterProcess.readFrom(json),
          json.path("startedMs").asLong(0),
          renewed,
          json.path("leaseMs").asLong(LEASE_MS),
          json.path("stoppedMs").asLong(-1),
          json.path("lastBatch").asLong(-1));
    }
  }

  /** The records of checkpoint {@code root}; a damaged one counts as a run that is alive. */
  static List<Run> read(FileSystem fs, Path root) throws IOException {
    return new ArrayList<>(stored(fs, root).values());
  }

  /**
   * The query id of the newest run recorded in the checkpoint at {@code root}, or null when no
   * record holds one.
   */
  public static UUID lastQueryId(FileSystem fs, Path root) throws IOException {
    return read(fs, root).stream()
        .filter(run -> run.queryId() != null)
        .max(java.util.Comparator.comparingLong(Run::startedMs))
        .map(Run::queryId)
        .orElse(null);
  }

  /** Each record file with its run. */
  private static Map<Path, Run> stored(FileSystem fs, Path root) throws IOException {
    Map<Path, Run> runs = new LinkedHashMap<>();
    FileStatus[] files;
    try {
      files = fs.listStatus(new Path(root, FOLDER));
    } catch (FileNotFoundException e) {
      return runs;
    }
    for (FileStatus status : files) {
      if (!status.getPath().getName().endsWith(".json")) continue;
      try {
        JsonNode json = JSON.readTree(CheckpointFiles.readAll(fs, status.getPath()));
        runs.put(status.getPath(), Run.fromJson(json, status.getModificationTime()));
      } catch (FileNotFoundException e) {
        // replaced or removed meanwhile
      } catch (IOException | RuntimeException e) {
        long written = status.getModificationTime();
        runs.put(
            status.getPath(),
            new Run(
                null,
                null,
                WriterProcess.readFrom(JSON.createObjectNode()),
                written,
                written,
                LEASE_MS,
                -1,
                -1));
      }
    }
    return runs;
  }

  /**
   * Writes (or replaces) the record of {@code run}. Only the {@code first} write creates the
   * records' folder: a later one finds it gone when the checkpoint was removed after the query
   * stopped, and writes nothing (Spark reports a stop after {@code stop()} has returned).
   */
  static void write(FileSystem fs, Path root, Run run, Configuration conf, boolean first)
      throws IOException {
    Path file = new Path(new Path(root, FOLDER), run.runId() + ".json");
    if (!first && !fs.exists(file.getParent())) return;
    CheckpointFiles.replace(
        file, JSON.writeValueAsString(run.toJson()).getBytes(StandardCharsets.UTF_8), conf);
  }

  /** Removes the records of runs that are over (stopped, or lapsed), except {@code keep}. */
  static void removeEnded(FileSystem fs, Path root, UUID keep) throws IOException {
    long now = System.currentTimeMillis();
    for (Map.Entry<Path, Run> stored : stored(fs, root).entrySet()) {
      Run run = stored.getValue();
      if (!keep.equals(run.runId()) && !run.alive(now)) fs.delete(stored.getKey(), false);
    }
  }

  /** A duration as people read it: "42 s", "7 min". */
  static String seconds(long millis) {
    Duration d = Duration.ofMillis(Math.max(0, millis));
    return d.toSeconds() < 120 ? d.toSeconds() + " s" : d.toMinutes() + " min";
  }
}
