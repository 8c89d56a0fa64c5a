package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.KeyPartitioner;
import dev.sparksavepoint.checkpoint.KeyPlacement;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.OperatorKind;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.checkpoint.TableOrigin;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A point lookup: the rows of the keys a filter pins down ({@link KeyPredicates}), read without
 * a scan. Each key is placed with Spark's own partitioner ({@link KeyPartitioner}), exactly as
 * the streaming query placed it; one task per partition that holds a key loads that partition
 * through Spark's provider, at the table's version, and {@code get}s its keys (an HDFS-backed
 * partition's files are read for its keys instead: {@link HdfsFiles}). The rows are those
 * Spark's {@code statestore} reader returns for them, flattened alike.
 */
final class KeyLookupScan implements Scan, Batch {
  private final Target target;
  private final FlatSchema flat;
  private final String name;
  private final FlatScan.ReadFailure failure;
  private final List<Object[]> keys;

  KeyLookupScan(
      Target target,
      FlatSchema flat,
      String name,
      FlatScan.ReadFailure failure,
      List<Object[]> keys) {
    this.target = target;
    this.flat = flat;
    this.name = name;
    this.failure = failure;
    this.keys = keys;
  }

  /**
   * The store partition a table reads, as its query opens it; shipped to the tasks. Only
   * stores of one key and one value per entry are looked up (aggregation, dropDuplicates,
   * [flatMap|applyInPandas]GroupsWithState).
   */
  record Target(
      String stateLocation,
      StoreSpec spec,
      long version,
      HashMap<Long, String[][]> ids,
      StateStoreConf conf,
      SerializableConfiguration hadoopConf)
      implements Serializable {

    /**
     * The lookup target of a table from {@code origin} whose reader schema is {@code source},
     * or null when its state is not one a key lookup reads.
     */
    static Target of(SparkSession spark, TableOrigin origin, StructType source) {
      Configuration hadoop = spark.sessionState().newHadoopConf();
      Checkpoint ckpt = Checkpoint.open(origin.checkpoint(), hadoop);
      // a non-strict query placed keys by its input's partitioning: a key may live anywhere
      if (!KeyPlacement.isStrict(ckpt, origin.operator(), origin.batchId())) return null;
      return at(spark, origin, source, origin.batchId(), ckpt, hadoop);
    }

    /**
     * The stores of a table from {@code origin} (reader schema {@code source}) as of batch
     * {@code batch} of checkpoint {@code ckpt} (opened with {@code hadoop}), wherever its query
     * placed keys; null when its state is not one a key lookup reads (see {@link
     * OperatorKind#lookups}).
     */
    static Target at(
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
      return new Target(
          new org.apache.hadoop.fs.Path(ckpt.location(), "state").toString(),
          spec,
          CheckpointLog.stateVersion(batch),
          ids,
          StoreProviders.storeConf(spark, ckpt.location(), batch, ids),
          new SerializableConfiguration(hadoop));
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

  /** The keys of one state partition, as Spark encodes them. */
  record Keys(int partition, List<byte[]> keys) implements InputPartition {}

  @Override
  public StructType readSchema() {
    return flat.readSchema();
  }

  @Override
  public String description() {
    return "savepoint state " + name + " (key lookup: " + keys.size() + " keys)";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    StructType keySchema = target.spec().keySchema();
    KeyPartitioner partitioner =
        KeyPartitioner.of(
            target.spec().storeName(), "default", keySchema, target.spec().numPartitions());
    Map<Integer, List<byte[]>> byPartition = new TreeMap<>();
    for (Object[] values : keys) {
      UnsafeRow key = encode(keySchema, values);
      byPartition
          .computeIfAbsent(partitioner.partition(key), p -> new ArrayList<>())
          .add(key.getBytes());
    }
    return byPartition.entrySet().stream()
        .map(e -> new Keys(e.getKey(), e.getValue()))
        .toArray(InputPartition[]::new);
  }

  /** A key's bytes exactly as Spark encodes the key (an UnsafeProjection of its fields). */
  static UnsafeRow encode(StructType schema, Object[] values) {
    List<Expression> fields = new ArrayList<>();
    StructField[] types = schema.fields();
    for (int i = 0; i < values.length; i++) {
      DataType type = types[i].dataType();
      fields.add(new Literal(values[i], type));
    }
    return UnsafeProjection.create(CollectionConverters.asScala(fields).toList())
        .apply(new GenericInternalRow(0))
        .copy();
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new ReaderFactory(target, flat, failure);
  }

  /** Serialized to the executors: loads a partition and reads its keys. */
  record ReaderFactory(Target target, FlatSchema flat, FlatScan.ReadFailure failure)
      implements PartitionReaderFactory {
    @Override
    public PartitionReader<InternalRow> createReader(InputPartition input) {
      Keys part = (Keys) input;
      List<InternalRow> rows = new ArrayList<>();
      try {
        int fields = target.spec().keySchema().size();
        List<UnsafeRow> keys = new ArrayList<>();
        for (byte[] bytes : part.keys()) {
          UnsafeRow key = new UnsafeRow(fields);
          key.pointTo(bytes, bytes.length);
          keys.add(key);
        }
        List<UnsafeRow> values = target.values(part.partition(), keys);
        UnsafeProjection projection = flat.projection();
        for (int i = 0; i < keys.size(); i++) {
          if (values.get(i) == null) continue;
          rows.add(
              projection
                  .apply(
                      new GenericInternalRow(
                          new Object[] {keys.get(i), values.get(i), part.partition()}))
                  .copy());
        }
      } catch (RuntimeException e) {
        throw failure.of(e);
      }
      return new ListedRows(rows);
    }
  }
}
