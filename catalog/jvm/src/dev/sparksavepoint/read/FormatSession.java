package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Runs Spark's state reader in a session whose checkpoint format version is the one the batch
 * being read was written with. Spark's reader takes the format from the session conf
 * ({@link CheckpointLog#FORMAT_VERSION_CONF}), which the offset log does not
 * record: a format v2 checkpoint (state checkpoint ids in {@code commits/N}) read by a session on
 * format 1 looks for files that do not exist, and the other way round. When the session's value
 * differs, the reader runs in a clone of the session with the right value; the user's session is
 * never changed.
 */
final class FormatSession {
  private FormatSession() {}

  /** Runs {@code read} with the format version of the batch {@code options} read. */
  static <T> T run(Map<String, String> options, Supplier<T> read) {
    SparkSession active = (SparkSession) org.apache.spark.sql.SparkSession.active();
    String wanted = Integer.toString(formatVersion(active, options));
    String current = active.sessionState().conf().getConfString(CheckpointLog.FORMAT_VERSION_CONF, "1");
    if (current.equals(wanted)) return read.get();
    SparkSession clone = active.cloneSession();
    clone.sessionState().conf().setConfString(CheckpointLog.FORMAT_VERSION_CONF, wanted);
    org.apache.spark.sql.SparkSession.setActiveSession(clone);
    try {
      return read.get();
    } finally {
      org.apache.spark.sql.SparkSession.setActiveSession(active);
    }
  }

  /** 2 when the commit entry of the batch read records state checkpoint ids, else 1. */
  static int formatVersion(SparkSession spark, Map<String, String> options) {
    String path = options.get("path");
    String batch = options.getOrDefault("batchId", options.get("changeEndBatchId"));
    if (path == null || batch == null) return 1;
    try {
      Path root = new Path(path);
      FileSystem fs = root.getFileSystem(spark.sessionState().newHadoopConf());
      CheckpointLog commits = new CheckpointLog(fs, root, CheckpointLog.COMMITS);
      if (!fs.exists(commits.file(Long.parseLong(batch)))) return 1;
      return CheckpointLog.stateUniqueIds(commits.metadata(Long.parseLong(batch))) == null ? 1 : 2;
    } catch (IOException | RuntimeException e) {
      return 1; // the reader itself reports a missing or damaged entry
    }
  }
}
