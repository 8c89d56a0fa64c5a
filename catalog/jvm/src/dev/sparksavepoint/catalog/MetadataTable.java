package dev.sparksavepoint.catalog;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.StateReadability;
import dev.sparksavepoint.checkpoint.StateRef;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.read.EventTime;
import dev.sparksavepoint.read.FlatSchema;
import dev.sparksavepoint.read.StateSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code savepoint.metadata}: one row per state table of the checkpoint, computed on the driver
 * from metadata and schema files, then one per query-log table ({@link QueryLogTables}, state
 * kind {@code operator state}, no operator id). Read-only. {@code warnings}: what a reader of the
 * batch should know that refuses nothing, one line each (log files changed by hand after Spark
 * wrote them, see {@code Checkpoint.warnings}), the same on every row. {@code event_time}: the
 * expression of the column the watermark evicts the table's rows by ({@link EventTime}), null
 * where none does.
 */
public final class MetadataTable extends LocalTable {
  public static final String NAME = "metadata";

  /** The state_kind of the query-log tables (sources, query, sink): Flink's operator state. */
  static final String OPERATOR_STATE = "operator state";

  public static final StructType SCHEMA =
      StructType.fromDDL(
          String.join(
              ", ",
              "uid STRING",
              "user_uid STRING",
              "operator_id BIGINT",
              "operator_name STRING",
              "state STRING",
              "state_kind STRING",
              "table_name STRING",
              "key_schema STRING",
              "value_schema STRING",
              "event_time STRING",
              "num_partitions INT",
              "provider STRING",
              "batch_id BIGINT",
              "min_batch_id BIGINT",
              "max_batch_id BIGINT",
              "state_bytes BIGINT",
              "checkpoint STRING",
              "spark_version STRING",
              "inferred STRING",
              "warnings ARRAY<STRING>"));

  /**
   * The schema shown for state Spark's reader cannot read (no schema file before Spark 3.1, a
   * pre-release format): no key, no value.
   */
  private static final StructType NO_SCHEMA = new StructType();

  private final Checkpoint checkpoint;
  private final long batchId;
  private final boolean sink;
  private final BiFunction<Operator, StructType, List<String>> valueNames;

  /**
   * {@code sink}: list {@code sink.files} too (the catalog knows the file sink's output);
   * {@code valueNames}: the names an operator's {@code default} table gives the leaves of its
   * value (null or missing: Spark's), as the state tables show them.
   */
  public MetadataTable(
      String catalog,
      Checkpoint checkpoint,
      long batchId,
      boolean sink,
      BiFunction<Operator, StructType, List<String>> valueNames) {
    super(catalog, NAME, SCHEMA, "it describes the checkpoint's state tables and is read-only");
    this.checkpoint = checkpoint;
    this.batchId = batchId;
    this.sink = sink;
    this.valueNames = valueNames;
  }

  @Override
  protected InternalRow[] rows() {
    List<InternalRow> rows = new ArrayList<>();
    String provider =
        shortProvider(
            checkpoint.recordedConf(batchId).getOrDefault(StoreProviders.PROVIDER_CONF, ""));
    List<Long> committed = checkpoint.committedBatches();
    long min = committed.get(0);
    long max = committed.get(committed.size() - 1);
    String sparkVersion = checkpoint.writtenBy(batchId);
    List<String> warnings = checkpoint.warnings(batchId);
    Object warning = new GenericArrayData(warnings.stream().map(LocalTable::str).toArray());
    Map<Long, String> userUids = checkpoint.userUids();
    for (Operator op : checkpoint.operators(batchId)) {
      long bytes = checkpoint.stateBytes(op.id());
      for (Map.Entry<String, StateRef> table : op.tables().entrySet()) {
        boolean readable = StateReadability.readable(checkpoint, op, batchId);
        StructType source =
            readable
                ? StateSource.schema(
                    checkpoint,
                    op,
                    table.getKey(),
                    batchId,
                    table.getValue().options(checkpoint.location(), batchId))
                : NO_SCHEMA; // listed all the same; reading it says why not
        List<String> names =
            table.getKey().equals("default") && readable ? valueNames.apply(op, source) : List.of();
        rows.add(
            new GenericInternalRow(
                new Object[] {
                  str(op.uid()),
                  str(userUids.get(op.id())),
                  op.id(),
                  str(op.name()),
                  str(table.getKey()),
                  str(op.stateKind(table.getKey(), table.getValue())),
                  str(catalog + "." + op.uid() + "." + table.getKey()),
                  str(fieldDdl(source, "key")),
                  str(valueDdl(source, names)),
                  str(readable ? EventTime.of(op, new FlatSchema(source, names)) : null),
                  op.numPartitions(),
                  str(provider),
                  batchId,
                  min,
                  max,
                  bytes,
                  str(checkpoint.location()),
                  str(sparkVersion),
                  str(op.inferred().isEmpty() ? null : String.join("; ", op.inferred())),
                  warning
                }));
      }
    }
    for (QueryLogTables.Listed t : QueryLogTables.listed(sink)) {
      rows.add(
          new GenericInternalRow(
              new Object[] {
                str(t.namespace()),
                null,
                null,
                str(t.namespace()),
                str(t.table()),
                str(OPERATOR_STATE),
                str(catalog + "." + t.namespace() + "." + t.table()),
                str(t.keys().toDDL()),
                str(t.values().toDDL()),
                null,
                null,
                str(provider),
                batchId,
                min,
                max,
                null,
                str(checkpoint.location()),
                str(sparkVersion),
                null,
                warning
              }));
    }
    return rows.toArray(new InternalRow[0]);
  }

  private static String fieldDdl(StructType source, String field) {
    for (var f : source.fields()) {
      if (f.name().equals(field)) {
        return f.dataType() instanceof StructType s ? s.toDDL() : f.dataType().sql();
      }
    }
    return null;
  }

  /**
   * The value part: everything but the key and the partition id, a flat value's fields named
   * {@code names} where given.
   */
  private static String valueDdl(StructType source, List<String> names) {
    List<String> parts = new ArrayList<>();
    for (var f : source.fields()) {
      if (f.name().equals("key") || f.name().equals("partition_id")) continue;
      parts.add(
          f.name().equals("value") && f.dataType() instanceof StructType s
              ? named(s, names).toDDL()
              : f.toDDL());
    }
    return parts.isEmpty() ? null : String.join(", ", parts);
  }

  /** {@code value} with its fields renamed by position ({@code names}), when none is nested. */
  private static StructType named(StructType value, List<String> names) {
    StructField[] fields = value.fields().clone();
    if (Arrays.stream(fields).anyMatch(f -> f.dataType() instanceof StructType)) return value;
    for (int i = 0; i < fields.length && i < names.size(); i++) {
      if (names.get(i) != null) {
        fields[i] =
            new StructField(
                names.get(i), fields[i].dataType(), fields[i].nullable(), fields[i].metadata());
      }
    }
    return new StructType(fields);
  }

  static String shortProvider(String providerClass) {
    if (providerClass.contains("RocksDB")) return "rocksdb";
    if (providerClass.contains("HDFSBacked")) return "hdfs";
    return providerClass.isEmpty() ? "hdfs" : providerClass;
  }
}
