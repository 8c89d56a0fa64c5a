package dev.sparksavepoint.image;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.store.RocksDBKeyCount;
import dev.sparksavepoint.store.StatePartition;
import dev.sparksavepoint.store.StoreBatch;
import java.io.Serializable;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The target of a full-image replace: the staging folder its tasks write into, the store conf
 * of an image commit (a RocksDB commit uploads a {@code .zip}, no changelog), and whether the
 * store is HDFS-backed (its image is committed there as version 1, a delta on top of no state,
 * which becomes the snapshot of version N+2).
 */
public record ImageTarget(String staging, StateStoreConf conf, boolean hdfs)
    implements Serializable {

  /** The target of images of {@code batch}'s stores, staged under {@code staging}. */
  public static ImageTarget of(SparkSession spark, StoreBatch batch, String staging) {
    SQLConf conf = StoreProviders.recordedConf(spark, batch.checkpoint(), batch.batchId());
    conf.setConfString(StoreProviders.CHANGELOG_CHECKPOINTING, "false");
    conf.setConfString(CheckpointLog.FORMAT_VERSION_CONF, batch.hasUniqueIds() ? "2" : "1");
    boolean rocksdb = conf.getConfString(StoreProviders.PROVIDER_CONF, "").contains("RocksDB");
    if (rocksdb && RocksDBKeyCount.settable()) conf.setConfString(RocksDBKeyCount.CONF, "false");
    return new ImageTarget(staging, StateStoreConf.apply(conf), !rocksdb);
  }

  /** The state folder under the staging folder. */
  public String stateLocation() {
    return new Path(staging, "state").toString();
  }

  /**
   * An empty store for a full image of {@code spec}'s partition {@code partition}: RocksDB
   * starts empty at version N+1 and commits N+2 as a {@code .zip}; an HDFS-backed store starts
   * at version 0 and commits version 1, a delta of puts only ({@code commit.StagedImages} moves
   * it into place as the snapshot of version N+2).
   */
  public StatePartition open(StoreBatch batch, StoreSpec spec, int partition) {
    long version = hdfs ? 0 : CheckpointLog.stateVersion(batch.batchId());
    return StatePartition.open(
        stateLocation(),
        batch.runId(),
        conf,
        batch.hadoopConf(),
        spec,
        partition,
        version,
        null,
        !hdfs);
  }

  /**
   * Version 1 of {@code spec}'s partition {@code partition} as this replace staged it (an
   * HDFS-backed image, committed, not yet in place), read-only.
   */
  public StatePartition openStaged(StoreBatch batch, StoreSpec spec, int partition) {
    return StatePartition.openToRead(
        stateLocation(), batch.runId(), conf, batch.hadoopConf(), spec, partition, 1);
  }
}
