package dev.sparksavepoint.image;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.checkpoint.TaskConf;
import dev.sparksavepoint.commit.BatchPlan;
import dev.sparksavepoint.store.RocksDBKeyCount;
import dev.sparksavepoint.store.StoreBatch;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.internal.SQLConf;

/**
 * A copy of the state of batch N (store version N+1) of a checkpoint into a new checkpoint
 * folder, store by store: each target store gets version N+1 as one full image per partition
 * (an HDFS-backed {@code .snapshot}, a RocksDB {@code .zip}), written by Spark's own providers.
 * A store may move to another operator id, get another partition count (keys are rehashed with
 * Spark's partitioner) or another provider. Built on the driver; shipped to the tasks.
 */
public final class ImagePlan implements BatchPlan, Serializable {
  /**
   * One store to copy: as the source has it ({@code from}; null for a store that starts
   * empty), as the target gets it, and how its values change on the way ({@code transform},
   * null when they do not).
   */
  public record StoreCopy(StoreSpec from, StoreSpec to, ValueTransform transform)
      implements Serializable {
    public StoreCopy(StoreSpec from, StoreSpec to) {
      this(from, to, null);
    }

    /** True when keys must be rehashed into another partition count. */
    boolean rehash() {
      return from != null && from.numPartitions() != to.numPartitions();
    }
  }

  private final String source;
  private final String target;
  private final long batchId;
  private final List<StoreCopy> copies;
  private final StateStoreConf sourceConf;
  private final StateStoreConf targetConf;

  /** {@link #targetConf} for RocksDB stores without column families: keys not counted. */
  private final StateStoreConf uncountedConf;

  private final TaskConf hadoopConf;
  private final HashMap<Long, String[][]> sourceIds;
  private final boolean targetIds;
  private final boolean fileDigests;
  private final boolean rowCounts;
  private final String runId = UUID.randomUUID().toString();

  private ImagePlan(
      String source,
      String target,
      long batchId,
      List<StoreCopy> copies,
      StateStoreConf sourceConf,
      StateStoreConf targetConf,
      StateStoreConf uncountedConf,
      TaskConf hadoopConf,
      HashMap<Long, String[][]> sourceIds,
      boolean targetIds,
      boolean fileDigests,
      boolean rowCounts) {
    this.source = source;
    this.target = target;
    this.batchId = batchId;
    this.copies = copies;
    this.sourceConf = sourceConf;
    this.targetConf = targetConf;
    this.uncountedConf = uncountedConf;
    this.hadoopConf = hadoopConf;
    this.sourceIds = sourceIds;
    this.targetIds = targetIds;
    this.fileDigests = fileDigests;
    this.rowCounts = rowCounts;
  }

  /** The same plan, whose tasks also report the size and SHA-256 of every file they write. */
  public ImagePlan withFileDigests() {
    return with(true, rowCounts);
  }

  /**
   * The same plan, whose tasks also count the rows of HDFS-backed image files they copy as they
   * are (read through Spark's reader: every record once). Without it such a copy reports its
   * rows as not counted (-1); a RocksDB copy and a copy written entry by entry know theirs.
   */
  public ImagePlan withRowCounts() {
    return with(fileDigests, true);
  }

  private ImagePlan with(boolean digests, boolean counts) {
    return new ImagePlan(
        source,
        target,
        batchId,
        copies,
        sourceConf,
        targetConf,
        uncountedConf,
        hadoopConf,
        sourceIds,
        targetIds,
        digests,
        counts);
  }

  /**
   * Every store of {@code ckpt}'s operators as of batch {@code n}, as {@link StoreSpec}s (read
   * from the schema files the operators record).
   */
  public static List<StoreSpec> stores(Checkpoint ckpt, long n, Configuration hadoopConf) {
    return StoreBatch.allStores(ckpt, n, hadoopConf);
  }

  /**
   * Plans the copy of {@code copies} from batch {@code n} of {@code ckpt} into {@code target},
   * whose stores use {@code providerClass}; with checkpoint format v2 ids when the source has
   * them and the target provider keeps them ({@code targetIds}).
   */
  public static ImagePlan of(
      SparkSession spark,
      Checkpoint ckpt,
      long n,
      String target,
      List<StoreCopy> copies,
      String providerClass,
      boolean targetIds) {
    Configuration hadoopConf = spark.sessionState().newHadoopConf();
    HashMap<Long, String[][]> ids = StoreProviders.uniqueIds(ckpt, n);
    StateStoreConf from = StoreProviders.storeConf(spark, ckpt.location(), n, ids);
    SQLConf conf = StoreProviders.recordedConf(spark, ckpt.location(), n);
    conf.setConfString(StoreProviders.PROVIDER_CONF, providerClass);
    // one full image per version: a RocksDB commit uploads a .zip, never a changelog
    conf.setConfString(StoreProviders.CHANGELOG_CHECKPOINTING, "false");
    conf.setConfString(CheckpointLog.FORMAT_VERSION_CONF, targetIds ? "2" : "1");
    StateStoreConf uncounted = null;
    if (providerClass.contains("RocksDB") && RocksDBKeyCount.settable()) {
      SQLConf uncountedSql = conf.clone();
      uncountedSql.setConfString(RocksDBKeyCount.CONF, "false");
      uncounted = StateStoreConf.apply(uncountedSql);
    }
    return new ImagePlan(
        ckpt.location(),
        target,
        n,
        new ArrayList<>(copies),
        from,
        StateStoreConf.apply(conf),
        uncounted,
        TaskConf.of(spark.sparkContext(), hadoopConf),
        ids,
        targetIds,
        false,
        false);
  }

  /** The source checkpoint. */
  public String source() {
    return source;
  }

  /** The target checkpoint. */
  @Override
  public String checkpoint() {
    return target;
  }

  /** The batch whose state is copied; both folders hold it as store version N+1. */
  @Override
  public long batchId() {
    return batchId;
  }

  public List<StoreCopy> copies() {
    return copies;
  }

  /** The stores of the target. */
  @Override
  public List<StoreSpec> stores() {
    return copies.stream().map(StoreCopy::to).toList();
  }

  @Override
  public Configuration hadoopConf() {
    return hadoopConf.value();
  }

  @Override
  public boolean hasUniqueIds() {
    return targetIds;
  }

  /** True when the copy's tasks report the digests of the files they write. */
  boolean fileDigests() {
    return fileDigests;
  }

  /** True when the copy's tasks count the rows of HDFS-backed files they copy as they are. */
  boolean rowCounts() {
    return rowCounts;
  }

  StateStoreConf sourceConf() {
    return sourceConf;
  }

  StateStoreConf targetConf() {
    return targetConf;
  }

  /**
   * The conf a target store is written with: without counting keys for a RocksDB store without
   * column families, whose every key is put once ({@link RocksDBKeyCount}); else
   * {@link #targetConf}.
   */
  StateStoreConf writeConf(StoreSpec spec) {
    return uncounted(spec) ? uncountedConf : targetConf;
  }

  /** True when {@code spec}'s stores are written without counting keys. */
  boolean uncounted(StoreSpec spec) {
    return uncountedConf != null && spec.families() == null;
  }

  UUID runId() {
    return UUID.fromString(runId);
  }

  /** The state version both folders hold: N+1. */
  long version() {
    return CheckpointLog.stateVersion(batchId);
  }

  String sourceState() {
    return new Path(source, "state").toString();
  }

  /** The v2 checkpoint id of version N+1 of a source store partition, or null. */
  String sourceId(StoreSpec spec, int partition) {
    if (sourceIds == null) return null;
    String[][] ids = sourceIds.get(spec.operatorId());
    if (ids == null || partition >= ids.length || spec.storeIndex() >= ids[partition].length) {
      return null;
    }
    return ids[partition][spec.storeIndex()];
  }

  /** Operator ids of the source to the state files they hold: for messages. */
  public Map<Long, Long> operatorMoves() {
    Map<Long, Long> moves = new HashMap<>();
    for (StoreCopy c : copies) {
      if (c.from() != null) moves.put(c.from().operatorId(), c.to().operatorId());
    }
    return moves;
  }
}
