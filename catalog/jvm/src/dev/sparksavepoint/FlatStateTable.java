package dev.sparksavepoint;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.execution.datasources.v2.state.StateDataSource;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * One state table, {@code savepoint.<uid>.<state>}: Spark's own {@code statestore} reader with
 * its nested key/value rows presented as flat columns (see {@link FlatSchema}).
 *
 * <p>Writable (aggregation, dropDuplicates, [flatMap|applyInPandas]GroupsWithState state, and
 * transformWithState state variables and timers, see {@link TwsPartitionWriter}):
 * INSERT INTO / {@code append()} upsert by key, INSERT OVERWRITE / {@code overwrite(lit(true))}
 * replace the whole state, DELETE rewrites it; each statement becomes one new committed
 * micro-batch of the checkpoint (see {@link StateWrite}). The table accepts any schema so that
 * Spark inserts no silent casts: {@link IncomingColumns} checks the columns. (Spark skips the
 * assignment alignment of UPDATE and MERGE for such tables, so those two are not available.)
 */
public final class FlatStateTable
    implements Table, SupportsRead, SupportsWrite, SupportsRowLevelOperations {
  private static final Set<TableCapability> CAPABILITIES = Set.of(
      TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE,
      TableCapability.ACCEPT_ANY_SCHEMA);

  private final String name;
  private final Map<String, String> options;
  private final FlatSchema flat;
  private final Map<String, String> properties;
  private final TableOrigin origin;

  private FlatStateTable(String name, Map<String, String> options, FlatSchema flat,
      Map<String, String> properties, TableOrigin origin) {
    this.name = name;
    this.options = options;
    this.flat = flat;
    this.properties = properties;
    this.origin = origin;
  }

  /** Builds the table; reads only schema and metadata files (no Spark job). */
  public static FlatStateTable create(String name, Map<String, String> options,
      Map<String, String> properties) {
    return create(name, options, properties, null);
  }

  /** Builds a table that can also be written ({@code origin} null: read-only). */
  public static FlatStateTable create(String name, Map<String, String> options,
      Map<String, String> properties, TableOrigin origin) {
    StructType source = new StateDataSource().inferSchema(new CaseInsensitiveStringMap(options));
    Map<String, String> props = new HashMap<>(properties);
    props.put("statestore.options", options.toString());
    return new FlatStateTable(name, options, new FlatSchema(source), props, origin);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public StructType schema() {
    return flat.schema();
  }

  /** The nested schema of Spark's {@code statestore} reader for this state. */
  public StructType sourceSchema() {
    return flat.source();
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    if (origin == null) throw Errors.unsupported("Writing " + name, name);
    return new StateWriteBuilder(origin, schema(), info);
  }

  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    return () -> new StateRewrite(this, info.command());
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap extra) {
    Map<String, String> merged = new HashMap<>(extra.asCaseSensitiveMap());
    merged.putAll(options);
    Table source = new StateDataSource().getTable(flat.source(), new Transform[0], merged);
    ScanBuilder builder = ((SupportsRead) source).newScanBuilder(new CaseInsensitiveStringMap(merged));
    ReadFailure failure = new ReadFailure(properties.getOrDefault("checkpoint", "?"),
        properties.getOrDefault("uid", "?"),
        Long.parseLong(properties.getOrDefault("operator_id", "-1")),
        name.substring(name.lastIndexOf('.') + 1),
        Long.parseLong(properties.getOrDefault("batch_id", "-1")));
    return () -> new FlatScan(builder.build(), flat, name, failure);
  }

  /** A scan of the source state reader whose rows are flattened in the reader tasks. */
  static final class FlatScan implements Scan, Batch {
    private final Scan source;
    private final FlatSchema flat;
    private final String name;
    private final ReadFailure failure;
    private Batch batch;

    FlatScan(Scan source, FlatSchema flat, String name, ReadFailure failure) {
      this.source = source;
      this.flat = flat;
      this.name = name;
      this.failure = failure;
    }

    @Override
    public StructType readSchema() {
      return flat.schema();
    }

    @Override
    public String description() {
      return "savepoint state " + name;
    }

    @Override
    public Batch toBatch() {
      return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
      return sourceBatch().planInputPartitions();
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
      return new FlatReaderFactory(sourceBatch().createReaderFactory(), flat, failure);
    }

    private Batch sourceBatch() {
      if (batch == null) batch = source.toBatch();
      return batch;
    }
  }

  /** What a read task reports when Spark's provider cannot load the state files it reads. */
  record ReadFailure(String checkpoint, String uid, long operatorId, String state, long batchId)
      implements java.io.Serializable {
    RuntimeException of(Throwable cause) {
      // A SparkThrowable thrown in a task reaches the driver as itself (Spark 4.3), not as a
      // "Job aborted due to stage failure" wrapper.
      return Errors.corruptState(checkpoint, uid, operatorId, state, batchId,
          org.apache.spark.TaskContext.getPartitionId(), cause).raise();
    }
  }

  /** Wraps the source reader factory; serialized to the executors with the flat schema. */
  static final class FlatReaderFactory implements PartitionReaderFactory {
    private final PartitionReaderFactory source;
    private final FlatSchema flat;
    private final ReadFailure failure;

    FlatReaderFactory(PartitionReaderFactory source, FlatSchema flat, ReadFailure failure) {
      this.source = source;
      this.flat = flat;
      this.failure = failure;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      PartitionReader<InternalRow> reader;
      try {
        reader = source.createReader(partition);
      } catch (Exception e) {
        throw failure.of(e);
      }
      UnsafeProjection projection = flat.projection();
      return new PartitionReader<>() {
        @Override
        public boolean next() throws java.io.IOException {
          try {
            return reader.next();
          } catch (Exception e) {
            throw failure.of(e);
          }
        }

        @Override
        public InternalRow get() {
          return projection.apply(reader.get());
        }

        @Override
        public void close() throws java.io.IOException {
          reader.close();
        }
      };
    }
  }
}
