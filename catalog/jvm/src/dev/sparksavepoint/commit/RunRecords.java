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
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
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

  /** One run's record. {@code stoppedMs} -1 while it runs; {@code lastBatch} -1 if unknown. */
  record Run(UUID runId, WriterProcess driver, long startedMs, long renewedMs, long leaseMs,
      long stoppedMs, long lastBatch) {
    boolean stopped() {
      return stoppedMs >= 0;
    }

    /** Running, its lease not lapsed (at {@code now}), and its driver not provably gone. */
    boolean alive(long now) {
      return !stopped() && now - renewedMs < leaseMs && !driver.isGone();
    }

    String describe(long now) {
      return "run " + runId + " since " + Instant.ofEpochMilli(startedMs) + ", in the driver "
          + driver.describe() + ", last heard from " + seconds(now - renewedMs) + " ago";
    }

    ObjectNode toJson(UUID queryId) {
      ObjectNode json = JSON.createObjectNode();
      json.put("queryId", queryId.toString()).put("runId", runId.toString());
      driver.writeTo(json);
      json.put("startedMs", startedMs).put("renewedMs", renewedMs).put("leaseMs", leaseMs);
      if (stopped()) json.put("stoppedMs", stoppedMs).put("lastBatch", lastBatch);
      return json;
    }

    static Run fromJson(JsonNode json, long fileTimeMs) {
      // the later of the driver's and the store's clock: a lease never ends early
      long renewed = Math.max(json.path("renewedMs").asLong(0), fileTimeMs);
      return new Run(UUID.fromString(json.path("runId").asText()),
          WriterProcess.readFrom(json), json.path("startedMs").asLong(0), renewed,
          json.path("leaseMs").asLong(LEASE_MS), json.path("stoppedMs").asLong(-1),
          json.path("lastBatch").asLong(-1));
    }
  }

  /** The records of checkpoint {@code root}; a damaged one counts as a run that is alive. */
  static List<Run> read(FileSystem fs, Path root) throws IOException {
    List<Run> runs = new ArrayList<>();
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
        runs.add(Run.fromJson(json, status.getModificationTime()));
      } catch (FileNotFoundException e) {
        // replaced or removed meanwhile
      } catch (IOException | RuntimeException e) {
        runs.add(new Run(new UUID(0, 0), WriterProcess.readFrom(JSON.createObjectNode()),
            status.getModificationTime(), status.getModificationTime(), LEASE_MS, -1, -1));
      }
    }
    return runs;
  }

  /** Writes (or replaces) the record of {@code run} of query {@code queryId}. */
  static void write(FileSystem fs, Path root, UUID queryId, Run run, Configuration conf)
      throws IOException {
    Path file = new Path(new Path(root, FOLDER), run.runId() + ".json");
    byte[] bytes = JSON.writeValueAsString(run.toJson(queryId)).getBytes(StandardCharsets.UTF_8);
    FileContext fc;
    try {
      fc = FileContext.getFileContext(file.toUri(), conf);
    } catch (IOException e) {
      try (FSDataOutputStream out = fs.create(file, true)) { // an object store: one PUT
        out.write(bytes);
      }
      return;
    }
    fs.mkdirs(file.getParent());
    Path temp = new Path(file.getParent(), "." + file.getName() + "." + UUID.randomUUID() + ".tmp");
    try {
      try (FSDataOutputStream out = fc.create(temp, EnumSet.of(CreateFlag.CREATE))) {
        out.write(bytes);
      }
      fc.rename(temp, file, Options.Rename.OVERWRITE);
    } finally {
      if (fc.util().exists(temp)) fc.delete(temp, false);
    }
  }

  /** Removes the records of runs that are over (stopped, or lapsed), except {@code keep}. */
  static void removeEnded(FileSystem fs, Path root, UUID keep) throws IOException {
    long now = System.currentTimeMillis();
    for (Run run : read(fs, root)) {
      if (!run.runId().equals(keep) && !run.alive(now)) {
        fs.delete(new Path(new Path(root, FOLDER), run.runId() + ".json"), false);
      }
    }
  }

  /** A duration as people read it: "42 s", "7 min". */
  static String seconds(long millis) {
    Duration d = Duration.ofMillis(Math.max(0, millis));
    return d.toSeconds() < 120 ? d.toSeconds() + " s" : d.toMinutes() + " min";
  }
}
