package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.KeyPlacement;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.OperatorKind;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.checkpoint.TableOrigin;
import dev.sparksavepoint.checkpoint.TaskConf;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * The store partitions a table reads, as its query opens them; shipped to the tasks of key
 * lookups ({@link KeyLookupScan}), the change feed's lookups and HDFS-backed scans
 * ({@link FlatScan}). Only stores of one key and one value per entry (aggregation,
 * dropDuplicates, [flatMap|applyInPandas]GroupsWithState).
 */
record StoreTarget(
    String stateLocation,
    StoreSpec spec,
    long version,
    HashMap<Long, String[][]> ids,
    StateStoreConf conf,
    TaskConf hadoopConf)
    implements Serializable {

  /**
   * The lookup target of a table from {@code origin} whose reader schema is {@code source},
   * or null when its state is not one a key lookup reads.
   */
  static StoreTarget forLookups(SparkSession spark, TableOrigin origin, StructType source) {
    Configuration hadoop = spark.sessionState().newHadoopConf();
    Checkpoint ckpt = Checkpoint.open(origin.checkpoint(), hadoop);
    // a non-strict query placed keys by its input's partitioning: a key may live anywhere
    if (!KeyPlacement.isStrict(ckpt, origin.operator(), origin.batchId())) return null;
    return at(spark, origin, source, origin.batchId(), ckpt, hadoop);
  }

  /**
   * The stores of a table from {@code origin} whose reader schema is {@code source} where they
   * are HDFS-backed (a scan streams their files, {@link #entries}); null for any other.
   */
  static StoreTarget forScan(SparkSession spark, TableOrigin origin, StructType source) {
    if (!HdfsFiles.streams()) return null;
    Configuration hadoop = spark.sessionState().newHadoopConf();
    Checkpoint ckpt = Checkpoint.open(origin.checkpoint(), hadoop);
    String provider =
        ckpt.recordedConf(origin.batchId())
            .getOrDefault(
                StoreProviders.PROVIDER_CONF, HDFSBackedStateStoreProvider.class.getName());
    if (!HDFSBackedStateStoreProvider.class.getName().equals(provider)) return null;
    StoreTarget target = at(spark, origin, source, origin.batchId(), ckpt, hadoop);
    boolean hdfs =
        target != null
            && target.ids() == null
            && HDFSBackedStateStoreProvider.class.getName().equals(target.conf().providerClass());
    return hdfs ? target : null;
  }

  /**
   * The stores of a table from {@code origin} (reader schema {@code source}) as of batch
   * {@code batch} of checkpoint {@code ckpt} (opened with {@code hadoop}), wherever its query
   * placed keys; null when its state is not one a key lookup reads (see {@link
   * OperatorKind#lookups}).
   */
  static StoreTarget at(
      SparkSession spark,
      TableOrigin origin,
      StructType source,
      long batch,
      Checkpoint ckpt,
      Configuration hadoop) {
    Operator op = origin.operator();
    if (!op.kind().lookups() || !origin.ref().option().equals("storeName")) return null;
    List<String> columns = List.of(source.fieldNames());
    if (!columns.equals(List.of("key", "value", "partition_id"))) return null;
    HashMap<Long, String[][]> ids = StoreProviders.uniqueIds(ckpt, batch);
    StoreSpec spec =
        new StoreSpec(
            op.id(),
            origin.ref().value(),
            op.numPartitions(),
            (StructType) source.apply("key").dataType(),
            (StructType) source.apply("value").dataType(),
            op.storeNames().indexOf(origin.ref().value()));
    return new StoreTarget(
        new org.apache.hadoop.fs.Path(ckpt.location(), "state").toString(),
        spec,
        CheckpointLog.stateVersion(batch),
        ids,
        StoreProviders.storeConf(spark, ckpt.location(), batch, ids),
        TaskConf.of(spark.sparkContext(), hadoop));
  }

  /**
   * Every entry of state partition {@code partition} at this target's version, streamed from
   * its HDFS-backed files ({@link HdfsFiles#entries}); null when they cannot be read so (the
   * caller reads through Spark's provider). Closing the entries closes the provider.
   */
  HdfsFiles.Entries entries(int partition) {
    StateStoreProvider provider =
        StoreProviders.open(
            stateLocation, UUID.randomUUID(), conf, hadoopConf.value(), spec, partition);
    HdfsFiles.Entries entries = null;
    try {
      entries =
          HdfsFiles.entries(
              provider,
              version,
              spec.keySchema(),
              spec.valueSchema(),
              conf,
              hadoopConf.value(),
              provider::close);
      return entries;
    } finally {
      if (entries == null) provider.close();
    }
  }

  /**
   * The values of {@code keys} (encoded as Spark encodes them) in state partition {@code
   * partition} at this target's version, in order, null for a key that has no entry: the
   * partition's files read for just these keys where it is HDFS-backed ({@link HdfsFiles}),
   * else loaded through Spark's provider, read-only, then closed.
   */
  List<UnsafeRow> values(int partition, List<UnsafeRow> keys) {
    List<UnsafeRow> values = new ArrayList<>(keys.size());
    StateStoreProvider provider =
        StoreProviders.open(
            stateLocation, UUID.randomUUID(), conf, hadoopConf.value(), spec, partition);
    try {
      Map<UnsafeRow, UnsafeRow> read =
          ids != null
              ? null
              : HdfsFiles.values(
                  provider,
                  version,
                  keys,
                  spec.keySchema(),
                  spec.valueSchema(),
                  conf,
                  hadoopConf.value());
      if (read != null) {
        for (UnsafeRow key : keys) values.add(read.get(key));
        return values;
      }
      ReadStateStore store =
          provider.getReadStore(
              version, Option.apply(StoreProviders.uniqueId(ids, spec, partition)));
      try {
        for (UnsafeRow key : keys) {
          UnsafeRow value = store.get(key, StateStore.DEFAULT_COL_FAMILY_NAME());
          values.add(value == null ? null : value.copy());
        }
      } finally {
        store.abort();
      }
    } finally {
      provider.close();
    }
    return values;
  }
}
