package dev.sparksavepoint.actions;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.FileDigests;
import dev.sparksavepoint.checkpoint.SavepointManifest;
import dev.sparksavepoint.conf.Settings;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Restores a savepoint (or any checkpoint) into a new checkpoint location the streaming query
 * starts from, optionally with another partition count, another state store provider, operators
 * moved to other ids, dropped or named ({@link CopyChanges}). A savepoint's files are first
 * checked against the sizes and SHA-256 its manifest records. A transaction like a write: the
 * new checkpoint's {@code commits/N} is written last, and a failed restore leaves nothing.
 *
 * <p>Example: {@code RestoreSavepoint.run(spark, "/savepoints/orders-41", "/ckpt/orders-v2",
 * CopyChanges.of(16, "rocksdb", List.of(), List.of()))}
 */
public final class RestoreSavepoint {
  private RestoreSavepoint() {}

  /** Restores {@code savepoint} into {@code target}; returns a one-line summary. */
  public static String run(
      SparkSession spark, String savepoint, String target, CopyChanges changes) {
    checkPartitions(spark, savepoint, changes.partitions());
    Configuration conf = spark.sessionState().newHadoopConf();
    Checkpoint from = Checkpoint.open(savepoint, conf);
    if (!from.hasCommittedBatch()) throw Errors.noCommittedBatch(savepoint);
    long n = from.lastCommitted();
    CheckpointCopy.Copied copied =
        CheckpointCopy.run(
            spark,
            from,
            n,
            target,
            changes,
            "restore '" + savepoint + "'",
            () -> verify(spark, from),
            null);
    int partitions =
        copied.plan().stores().stream().mapToInt(s -> s.numPartitions()).max().orElse(0);
    return "Restored batch "
        + n
        + " of '"
        + savepoint
        + "' into '"
        + target
        + "': "
        + copied.plan().copies().size()
        + " store(s) of "
        + copied.resolved().ids().size()
        + " operator(s), "
        + partitions
        + " partition(s), "
        + CheckpointCopy.providerNames().getOrDefault(copied.provider(), copied.provider())
        + ". Start the streaming query with checkpointLocation '"
        + target
        + "'.";
  }

  /**
   * Refuses a partition count below 1 (0: keep the savepoint's) or above {@link
   * Settings#MAX_PARTITIONS}: a store per partition, each with files for every batch, so a typo
   * (100000 for 1000) would write for hours.
   */
  private static void checkPartitions(SparkSession spark, String savepoint, int partitions) {
    int max =
        Integer.parseInt(
            spark
                .conf()
                .get(Settings.MAX_PARTITIONS, Integer.toString(Settings.MAX_PARTITIONS_DEFAULT)));
    if (partitions < 0 || partitions > max) {
      throw Errors.badArguments(
          savepoint,
          "Cannot restore onto "
              + partitions
              + " partitions: give 1 to "
              + max
              + " (each partition is a state store of its own, with files for every batch; for"
              + " more, set "
              + Settings.MAX_PARTITIONS
              + ")");
    }
  }

  /**
   * Checks every file a savepoint's manifest lists (size and SHA-256); nothing for a checkpoint
   * without one.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CHECKSUM_MISMATCH
   */
  static void verify(SparkSession spark, Checkpoint from) {
    JsonNode manifest;
    try {
      manifest = SavepointManifest.read(from.fileSystem(), from.root());
    } catch (IOException e) {
      throw Errors.corruptFile(
          from.location(),
          SavepointManifest.FILE,
          "the savepoint",
          e,
          "Restore the file from a copy of the savepoint.");
    }
    if (manifest == null) return;
    Map<String, JsonNode> expected = new HashMap<>();
    for (JsonNode f : manifest.path("files")) expected.put(f.path("path").asText(), f);
    for (String path : expected.keySet()) {
      try {
        if (!from.fileSystem().exists(new org.apache.hadoop.fs.Path(from.root(), path))) {
          throw Errors.checksumMismatch(from.location(), path, "is missing");
        }
      } catch (IOException e) {
        throw Errors.io(from.location(), e);
      }
    }
    for (FileDigests.Digest d :
        FileDigests.of(spark, from.root(), List.copyOf(expected.keySet()))) {
      JsonNode f = expected.get(d.path());
      if (f.path("bytes").asLong() != d.bytes()) {
        throw Errors.checksumMismatch(from.location(), d.path(), "has " + d.bytes() + " bytes");
      }
      if (!f.path("sha256").asText().equals(d.sha256())) {
        throw Errors.checksumMismatch(from.location(), d.path(), "has another SHA-256");
      }
    }
  }
}
