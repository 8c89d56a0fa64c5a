package dev.sparksavepoint.checkpoint;

import dev.sparksavepoint.adapters.RecordedConf;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.state.NoPrefixKeyStateEncoderSpec;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.StateStoreProviderId;
import org.apache.spark.sql.internal.SQLConf;
import scala.Option;

/**
 * How a checkpoint's state store providers are opened, exactly as its query opens them: the
 * session conf overlaid with the confs recorded in the offset log, the checkpoint format of the
 * batch (with its state checkpoint ids), and {@code StateStoreProvider.createAndInit}. Reads
 * and writes both open stores through here.
 *
 * <p>One difference: our providers report to no {@code StateStoreCoordinator}
 * ({@link #WITHOUT_COORDINATOR}). A query's providers tell its coordinator, on the driver, of
 * each commit and snapshot upload; ours run without a query, where the lookup of the
 * coordinator fails and Spark logs "StateStoreCoordinator endpoint not available" at WARN for
 * every commit (or, in a driver that has one, they would report commits of a run no query has).
 * A streaming query's own providers are opened with its session's conf and still report.
 */
public final class StoreProviders {
  /**
   * RocksDB changelog checkpointing: always on for a write, whatever the query uses (Spark does
   * not record it in the offset log). A RocksDB version is then committed as
   * {@code <version>.changelog} only, never as a {@code <version>.zip} snapshot. This matters
   * when a write is killed before commits/N+1: its version N+2 files stay behind, and the
   * restarted query commits its own version N+2. A leftover changelog is overwritten by the
   * query's changelog or outranked by its snapshot; a leftover snapshot would outrank the
   * query's changelog, and every later load of version N+2 would resurrect the killed edit
   * (tests/system/test_write_crash.py).
   */
  public static final String CHANGELOG_CHECKPOINTING =
      "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled";

  /** The provider conf: which {@code StateStoreProvider} class a store uses. */
  public static final String PROVIDER_CONF = "spark.sql.streaming.stateStore.providerClass";

  /**
   * The settings that keep a provider from reporting to a {@code StateStoreCoordinator}: commit
   * validation (each commit reported, for the query's driver to check all partitions
   * committed) and snapshot upload lag reports.
   */
  public static final Map<String, String> WITHOUT_COORDINATOR =
      Map.of(
          "spark.sql.streaming.stateStore.commitValidation.enabled", "false",
          "spark.sql.streaming.stateStore.coordinatorReportSnapshotUploadLag", "false");

  private StoreProviders() {}

  /**
   * The session's SQL conf overlaid with the confs recorded in offsets/{batchId}, with RocksDB
   * changelog checkpointing on ({@link #CHANGELOG_CHECKPOINTING}) and the checkpoint format of
   * the batch (2 when it records state checkpoint ids {@code uniqueIds}).
   */
  public static StateStoreConf storeConf(
      SparkSession spark, String path, long batchId, Map<Long, String[][]> uniqueIds) {
    SQLConf conf = recordedConf(spark, path, batchId);
    conf.setConfString(CHANGELOG_CHECKPOINTING, "true");
    conf.setConfString(CheckpointLog.FORMAT_VERSION_CONF, uniqueIds == null ? "1" : "2");
    return StateStoreConf.apply(conf);
  }

  /**
   * The SQL conf our providers of a checkpoint open with: a clone of the session's overlaid
   * with the confs recorded in offsets/{batchId}, and {@link #WITHOUT_COORDINATOR}.
   */
  public static SQLConf recordedConf(SparkSession spark, String path, long batchId) {
    SQLConf conf = spark.sessionState().conf().clone();
    RecordedConf.overlay(spark, path, batchId, conf);
    WITHOUT_COORDINATOR.forEach(conf::setConfString);
    return conf;
  }

  /**
   * The state checkpoint ids recorded in commits/{batchId} (checkpoint format v2): operator id
   * to [partition][store index]; or null.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when the entry or its
   *     ids cannot be parsed
   */
  public static HashMap<Long, String[][]> uniqueIds(Checkpoint ckpt, long batchId) {
    try {
      Map<Long, String[][]> ids = CheckpointLog.stateUniqueIds(ckpt.commitLog().metadata(batchId));
      return ids == null ? null : new HashMap<>(ids);
    } catch (IOException e) {
      throw Errors.corruptFile(
          ckpt.location(),
          CheckpointLog.COMMITS + "/" + batchId,
          "batch " + batchId,
          e,
          "Restore the file from a copy of the checkpoint.");
    }
  }

  /** The v2 checkpoint id of {@code spec}'s partition {@code partition} in {@code ids}, or null. */
  public static String uniqueId(Map<Long, String[][]> ids, StoreSpec spec, int partition) {
    if (ids == null) return null;
    String[][] byPartition = ids.get(spec.operatorId());
    if (byPartition == null
        || partition >= byPartition.length
        || spec.storeIndex() >= byPartition[partition].length) {
      return null;
    }
    return byPartition[partition][spec.storeIndex()];
  }

  /** Spark's provider of one store partition, initialized as the query initializes it. */
  public static StateStoreProvider open(
      String stateLocation,
      UUID runId,
      StateStoreConf conf,
      Configuration hadoopConf,
      StoreSpec spec,
      int partition) {
    StateStoreId id =
        new StateStoreId(stateLocation, spec.operatorId(), partition, spec.storeName());
    ColumnFamilies families = spec.families();
    return StateStoreProvider.createAndInit(
        new StateStoreProviderId(id, runId),
        spec.keySchema(),
        spec.valueSchema(),
        new NoPrefixKeyStateEncoderSpec(spec.keySchema()),
        families != null,
        conf,
        hadoopConf,
        false,
        families == null ? Option.empty() : families.schemaProvider(stateLocation, hadoopConf));
  }
}
