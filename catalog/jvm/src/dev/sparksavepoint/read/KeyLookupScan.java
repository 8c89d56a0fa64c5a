package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.KeyPartitioner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
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
  private final StoreTarget target;
  private final FlatSchema flat;
  private final String name;
  private final FlatScan.ReadFailure failure;
  private final List<Object[]> keys;

  KeyLookupScan(
      StoreTarget target,
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
  record ReaderFactory(StoreTarget target, FlatSchema flat, FlatScan.ReadFailure failure)
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
