package dev.sparksavepoint.read;

import dev.sparksavepoint.adapters.ReaderSettings;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.MovedSchemaFiles;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.conf.Settings;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Runs Spark's state reader in a session set up for the checkpoint it reads, without changing
 * the user's session: when a setting must differ, the reader runs in a clone of the session.
 *
 * <ul>
 *   <li>The checkpoint format version the batch was written with. Spark's reader takes it from
 *       the session conf ({@link CheckpointLog#FORMAT_VERSION_CONF}), which the offset log does
 *       not record: a format v2 checkpoint (state checkpoint ids in {@code commits/N}) read by a
 *       session on format 1 looks for files that do not exist, and the other way round.
 *   <li>A moved transformWithState checkpoint ({@link MovedSchemaFiles}): its schema files are
 *       read under the checkpoint, not where the operator metadata recorded them, through
 *       {@link RelocatedSchemaFs} as the file system of the recorded paths' scheme. The reader
 *       builds its Hadoop conf from the active session, so the setting reaches it (and its
 *       tasks: every other path goes to the scheme's own file system).
 *   <li>Where this Spark's reader needs it outside a streaming query ({@link ReaderSettings}):
 *       the settings that keep providers from reporting to a coordinator ({@link
 *       StoreProviders#WITHOUT_COORDINATOR}).
 * </ul>
 */
final class ReaderSession {
  private ReaderSession() {}

  /** Runs {@code read} in a session with the settings the batch {@code options} reads needs. */
  static <T> T run(Map<String, String> options, Supplier<T> read) {
    SparkSession active = (SparkSession) org.apache.spark.sql.SparkSession.active();
    Map<String, String> settings = settings(active, options);
    if (settings.isEmpty()) return read.get();
    SparkSession clone = active.cloneSession();
    settings.forEach(clone.sessionState().conf()::setConfString);
    org.apache.spark.sql.SparkSession.setActiveSession(clone);
    try {
      return read.get();
    } finally {
      org.apache.spark.sql.SparkSession.setActiveSession(active);
    }
  }

  /** The session settings that differ from the active session's for the read of {@code options}. */
  private static Map<String, String> settings(SparkSession spark, Map<String, String> options) {
    Map<String, String> settings = new LinkedHashMap<>();
    String wanted = Integer.toString(formatVersion(spark, options));
    String current =
        spark.sessionState().conf().getConfString(CheckpointLog.FORMAT_VERSION_CONF, "1");
    if (!current.equals(wanted)) settings.put(CheckpointLog.FORMAT_VERSION_CONF, wanted);
    if (ReaderSettings.withoutCoordinator()) {
      StoreProviders.WITHOUT_COORDINATOR.forEach(
          (name, value) -> {
            if (!value.equals(spark.sessionState().conf().getConfString(name, null))) {
              settings.put(name, value);
            }
          });
    }
    MovedSchemaFiles.Relocation moved = relocation(spark, options);
    if (moved != null) {
      Configuration hadoop = spark.sessionState().newHadoopConf();
      String impl = RelocatedSchemaFs.implKey(moved.recordedRoot().toUri().getScheme());
      settings.put(Settings.RELOCATED_SCHEMA_DELEGATE, hadoop.get(impl));
      settings.put(impl, RelocatedSchemaFs.class.getName());
      settings.put(
          Settings.RELOCATED_SCHEMA_FROM,
          Path.getPathWithoutSchemeAndAuthority(moved.recordedRoot()).toString());
      settings.put(Settings.RELOCATED_SCHEMA_TO, moved.root().toString());
    }
    return settings;
  }

  /** The relocation of the schema files of the operator {@code options} read, or null. */
  private static MovedSchemaFiles.Relocation relocation(
      SparkSession spark, Map<String, String> options) {
    String path = options.get("path");
    String batch = options.getOrDefault("batchId", options.get("changeEndBatchId"));
    if (path == null || batch == null) return null;
    return MovedSchemaFiles.of(
        spark.sessionState().newHadoopConf(),
        path,
        Long.parseLong(options.getOrDefault("operatorId", "0")),
        Long.parseLong(batch));
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
