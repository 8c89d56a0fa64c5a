package dev.sparksavepoint.catalog;

import dev.sparksavepoint.checkpoint.TableOrigin;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.read.ChangeFeedScan;
import dev.sparksavepoint.read.FlatScan;
import dev.sparksavepoint.read.FlatSchema;
import dev.sparksavepoint.read.RowOverlay;
import dev.sparksavepoint.read.StateScanBuilder;
import dev.sparksavepoint.read.StateSource;
import dev.sparksavepoint.write.EditTransaction;
import dev.sparksavepoint.write.StateRewrite;
import dev.sparksavepoint.write.StateWriteBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * One state table, {@code savepoint.<uid>.<state>}: Spark's own {@code statestore} reader with
 * its nested key/value rows presented as flat columns (see {@link FlatSchema}).
 *
 * <p>Writable (aggregation, dropDuplicates, [flatMap|applyInPandas]GroupsWithState state, and
 * transformWithState state variables and timers):
 * INSERT INTO / {@code append()} upsert by key, INSERT OVERWRITE / {@code overwrite(lit(true))}
 * replace the whole state, DELETE rewrites it; each statement becomes one new committed
 * micro-batch of the checkpoint (see the {@code write} package). The table accepts any schema so
 * that Spark inserts no silent casts: {@code write.IncomingColumns} checks the columns. UPDATE
 * and MERGE INTO run on the table's row-level twin ({@link #forRowLevelCommands}), as a
 * copy-on-write replace like DELETE.
 *
 * <p>{@code partition_id}, the state partition of a row, is a metadata column: selected by name,
 * left out of {@code SELECT *}, and so of {@code INSERT *} and {@code UPDATE SET *} in MERGE.
 */
public final class FlatStateTable
    implements Table,
        SupportsRead,
        SupportsWrite,
        SupportsRowLevelOperations,
        SupportsMetadataColumns {
  private static final Set<TableCapability> CAPABILITIES =
      Set.of(
          TableCapability.BATCH_READ,
          TableCapability.BATCH_WRITE,
          TableCapability.TRUNCATE,
          TableCapability.ACCEPT_ANY_SCHEMA);

  /** The row-level twin's: Spark resolves and aligns UPDATE and MERGE only for these. */
  private static final Set<TableCapability> ROW_LEVEL_CAPABILITIES =
      Set.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE);

  /** The property naming the columns of the state's key, comma-separated (empty: none). */
  public static final String KEY_COLUMNS = "key_columns";

  /** The property of a table read with VERSION/TIMESTAMP AS OF: the batch asked for. */
  public static final String AS_OF = "as_of";

  private final String name;
  private final Map<String, String> options;
  private final FlatSchema flat;
  private final Map<String, String> properties;
  private final TableOrigin origin;
  private final boolean rowLevelTwin;

  private FlatStateTable(
      String name,
      Map<String, String> options,
      FlatSchema flat,
      Map<String, String> properties,
      TableOrigin origin,
      boolean rowLevelTwin) {
    this.name = name;
    this.options = options;
    this.flat = flat;
    this.properties = properties;
    this.origin = origin;
    this.rowLevelTwin = rowLevelTwin;
  }

  /**
   * The same table as the target of UPDATE and MERGE INTO: it does not accept any schema, so
   * Spark resolves the statement and aligns its assignments with the columns (see
   * {@code sql.RowLevelStateCommands}).
   */
  public FlatStateTable forRowLevelCommands() {
    return new FlatStateTable(name, options, flat, properties, origin, true);
  }

  /** True for the twin {@link #forRowLevelCommands} returns. */
  public boolean isRowLevelTwin() {
    return rowLevelTwin;
  }

  /**
   * The table of a state whose {@code statestore} reader schema is {@code source}, read with
   * {@code options}; writable from {@code origin} (null: read-only).
   */
  public static FlatStateTable create(
      String name,
      StructType source,
      Map<String, String> options,
      Map<String, String> properties,
      TableOrigin origin) {
    return create(name, source, List.of(), options, properties, origin);
  }

  /** {@link #create}, the value columns named {@code valueNames} ({@link FlatSchema}). */
  public static FlatStateTable create(
      String name,
      StructType source,
      List<String> valueNames,
      Map<String, String> options,
      Map<String, String> properties,
      TableOrigin origin) {
    Map<String, String> props = new HashMap<>(properties);
    props.put("statestore.options", options.toString());
    FlatSchema flat = new FlatSchema(source, valueNames);
    List<String> key = flat.keyColumns();
    props.put(KEY_COLUMNS, key == null ? "" : String.join(",", key));
    return new FlatStateTable(name, options, flat, props, origin, false);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public StructType schema() {
    return flat.schema();
  }

  @Override
  public MetadataColumn[] metadataColumns() {
    StructField partition = flat.partitionColumn();
    if (partition == null) return new MetadataColumn[0];
    return new MetadataColumn[] {
      new Column(partition.name(), partition.dataType(), partition.getComment().get())
    };
  }

  /** A metadata column of state tables (never null). */
  private record Column(String name, DataType dataType, String comment) implements MetadataColumn {
    @Override
    public boolean isNullable() {
      return false;
    }
  }

  /**
   * The columns that tell the table's rows apart (see {@link FlatSchema#entryKeyColumns}); empty
   * where rows repeat their key: list elements, a join side's rows.
   */
  public List<String> rowKeyColumns() {
    String kind = properties.getOrDefault("state_kind", "");
    return kind.equals("list") || kind.equals("join_side") ? List.of() : flat.entryKeyColumns();
  }

  /**
   * The change feed of batches {@code from} to {@code to} of this table read from the batches'
   * change files ({@link ChangeFeedScan}), or null where it is not read that way (the feed is
   * then the diff of full reads, {@code sql.StateDiff}).
   */
  public Table changes(long from, long to) {
    if (origin == null) return null;
    java.util.function.Supplier<ScanBuilder> scans =
        ChangeFeedScan.of(
            org.apache.spark.sql.classic.SparkSession.active(),
            origin,
            flat,
            options,
            from,
            to,
            name,
            readFailure());
    return scans == null ? null : new StateChangesTable(name, flat.changes().readSchema(), scans);
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return rowLevelTwin ? ROW_LEVEL_CAPABILITIES : CAPABILITIES;
  }

  @Override
  public StateWriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    if (origin == null) throw Errors.unsupported("Writing " + name, name);
    return new StateWriteBuilder(origin, schema(), info);
  }

  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    return () ->
        new StateRewrite(name, info.command(), this::fullScanBuilder, this::newWriteBuilder);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap extra) {
    return scanBuilder(extra, true);
  }

  /**
   * The scan of a copy-on-write command (DELETE, UPDATE, MERGE): it must return every row, as
   * the write replaces the whole table, so a filter on the key never turns it into a lookup.
   */
  private ScanBuilder fullScanBuilder(CaseInsensitiveStringMap extra) {
    return scanBuilder(extra, false);
  }

  /** What a read task of this table reports when Spark's provider cannot load its files. */
  private FlatScan.ReadFailure readFailure() {
    return new FlatScan.ReadFailure(
        properties.getOrDefault("checkpoint", "?"),
        properties.getOrDefault("uid", "?"),
        Long.parseLong(properties.getOrDefault("operator_id", "-1")),
        name.substring(name.lastIndexOf('.') + 1),
        Long.parseLong(properties.getOrDefault("batch_id", "-1")));
  }

  private ScanBuilder scanBuilder(CaseInsensitiveStringMap extra, boolean lookups) {
    Map<String, String> merged = new HashMap<>(extra.asCaseSensitiveMap());
    merged.putAll(options);
    FlatScan.ReadFailure failure = readFailure();
    RowOverlay staged =
        properties.containsKey(AS_OF)
            ? null // VERSION AS OF reads the committed batch, also inside a transaction
            : EditTransaction.stagedRows(
                org.apache.spark.sql.classic.SparkSession.active(),
                failure.checkpoint(),
                failure.uid(),
                failure.operatorId(),
                failure.state(),
                failure.batchId(),
                flat.schema());
    return new StateScanBuilder(
        () -> StateSource.scanBuilder(flat.source(), merged),
        flat,
        name,
        failure,
        origin,
        lookups,
        staged);
  }
}
