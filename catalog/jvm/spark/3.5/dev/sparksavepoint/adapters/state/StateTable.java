package dev.sparksavepoint.adapters.state;

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.execution.streaming.state.StateStoreProviderId;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A state read on Spark 3.5 as a table: one input partition per store partition. */
final class StateTable implements SupportsRead, Scan, Batch {
  private final StructType schema;
  private final StateRead read;

  StateTable(StructType schema, StateRead read) {
    this.schema = schema;
    this.read = read;
  }

  @Override
  public String name() {
    return "state " + read.stateLocation() + " " + read.operatorId() + " " + read.storeName();
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return () -> this;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return IntStream.range(0, read.partitions())
        .mapToObj(p -> new Part(read, p))
        .toArray(InputPartition[]::new);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return partition -> new Reader((Part) partition);
  }

  /** One store partition to read. */
  public record Part(StateRead read, int partition) implements InputPartition {}

  /** Lists one store partition at the version read through Spark's own provider. */
  static final class Reader implements PartitionReader<InternalRow> {
    private final Part part;
    private final org.apache.spark.sql.execution.streaming.state.StateStoreProvider provider;
    private final org.apache.spark.sql.execution.streaming.state.ReadStateStore store;
    private final scala.collection.Iterator<UnsafeRowPair> rows;
    private final int[] keyFields;
    private final int[] valueFields;
    private InternalRow current;

    Reader(Part part) {
      this.part = part;
      StateRead read = part.read();
      provider =
          org.apache.spark.sql.execution.streaming.state.StateStoreProvider.createAndInit(
              new StateStoreProviderId(
                  new StateStoreId(
                      read.stateLocation(), read.operatorId(), part.partition(), read.storeName()),
                  java.util.UUID.randomUUID()),
              read.storedKey(),
              read.storedValue(),
              0,
              read.storeConf(),
              read.hadoopConf().value());
      try {
        store = provider.getReadStore(read.version());
      } catch (RuntimeException e) {
        provider.close();
        throw e;
      }
      rows = store.iterator();
      keyFields = IntStream.range(0, read.keySchema().size()).toArray();
      valueFields =
          IntStream.range(0, read.storedValue().size())
              .filter(
                  i -> !read.joinSide() || !read.storedValue().fields()[i].name().equals("matched"))
              .toArray();
    }

    @Override
    public boolean next() {
      if (!rows.hasNext()) return false;
      UnsafeRowPair pair = rows.next();
      current =
          new GenericInternalRow(
              new Object[] {
                project(pair.key(), read().storedKey(), keyFields),
                project(pair.value(), read().storedValue(), valueFields),
                part.partition()
              });
      return true;
    }

    private StateRead read() {
      return part.read();
    }

    private static InternalRow project(UnsafeRow row, StructType schema, int[] fields) {
      if (fields.length == schema.size()) return row.copy();
      Object[] values = new Object[fields.length];
      for (int i = 0; i < fields.length; i++) {
        values[i] =
            row.isNullAt(fields[i])
                ? null
                : row.get(fields[i], schema.fields()[fields[i]].dataType());
      }
      return new GenericInternalRow(values).copy();
    }

    @Override
    public InternalRow get() {
      return current;
    }

    @Override
    public void close() {
      store.abort();
      provider.close();
    }
  }
}
