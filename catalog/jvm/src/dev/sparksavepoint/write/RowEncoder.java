package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.KeyPlacement;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.checkpoint.TwsVariable;
import dev.sparksavepoint.read.FlatSchema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.CreateNamedStruct;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.NullType$;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Turns the flat rows a write statement gives (matched by {@link IncomingColumns}) into the rows
 * of the edited store, byte-identical to Spark's own encoding (UnsafeProjections with the
 * store's or column family's schemas, as Spark's operators and state variable encoders apply),
 * and computes each row's state partition exactly as the streaming query's shuffle does
 * (Spark's HashPartitioning on the grouping key). Which flat columns there are and how they
 * make keys and values is the state kind's {@link Layout}. Key columns (the "strict" ones:
 * grouping key, map key, timer timestamp) must have exactly their type; values may be widened.
 */
final class RowEncoder implements Serializable {
  private final Layout layout;
  private final StructType given;
  private final int[] sources;
  private final DataType[] types;
  private final String[] names;

  /** {@link Layout#strictColumns}, looked up once: it is needed for every row. */
  private final int strict;

  private final int numPartitions;
  private final String timeZone;

  /** Which grouping columns place a key ({@link #place}); strict (all) unless told. */
  private KeyPlacement placement = KeyPlacement.STRICT;

  private RowEncoder(
      Layout layout,
      StructType given,
      int[] sources,
      DataType[] types,
      String[] names,
      int numPartitions,
      String timeZone) {
    this.layout = layout;
    this.given = given;
    this.sources = sources;
    this.types = types;
    this.names = names;
    this.strict = layout.strictColumns();
    this.numPartitions = numPartitions;
    this.timeZone = timeZone;
  }

  /** Validates the given columns against the table and builds the encoder (driver side). */
  static RowEncoder create(WritePlan plan, StructType table, StructType given, String timeZone) {
    Layout layout =
        plan.variable() != null
            ? new VariableLayout(plan.variable())
            : plan.joinCounts() != null
                ? JoinSideLayout.of(plan.edited())
                : new StoreLayout(plan.edited());
    List<String> leaves = layout.columns();
    DataType[] types = new DataType[leaves.size()];
    String[] names = new String[leaves.size()];
    for (int i = 0; i < types.length; i++) {
      StructField column = table.fields()[i];
      String field =
          column.metadata().contains(FlatSchema.STATE_FIELD)
              ? column.metadata().getString(FlatSchema.STATE_FIELD)
              : column.name();
      if (!field.equals(leaves.get(i))) {
        throw new IllegalStateException(
            "[SAVEPOINT_INTERNAL] flat column "
                + column.name()
                + " does not match state field "
                + leaves.get(i));
      }
      types[i] = column.dataType();
      names[i] = column.name();
    }
    int[] sources = IncomingColumns.match(plan, table, layout.strictColumns(), given);
    return new RowEncoder(
        layout, given, sources, types, names, plan.edited().numPartitions(), timeZone);
  }

  /** The table's names of the grouping key columns, in key order. */
  List<String> groupingNames() {
    return List.of(Arrays.copyOf(names, layout.groupingColumns()));
  }

  /** Places keys by {@code placement} (a non-strict checkpoint's, {@link WritePlacement}). */
  void place(KeyPlacement placement) {
    this.placement = placement;
  }

  /**
   * The given column names that place a key in its state partition, in hash order (the
   * write's clustering): the grouping key, or the columns a non-strict query partitioned by.
   */
  String[] keyColumnNames() {
    int[] columns = placement.indexes(layout.groupingColumns());
    String[] out = new String[columns.length];
    for (int i = 0; i < out.length; i++) out[i] = given.fields()[sources[columns[i]]].name();
    return out;
  }

  /**
   * The given column names that make an entry's key (grouping key, then a map key or timer
   * timestamp), in key order: the write sorts each partition by them, so that two rows of one
   * entry arrive one after the other.
   */
  String[] entryKeyColumnNames() {
    String[] out = new String[strict];
    for (int i = 0; i < out.length; i++) out[i] = given.fields()[sources[i]].name();
    return out;
  }

  /** Code-generated projections for one task. */
  Bound bind() {
    Entries entries = layout.entries(this::column);
    List<Expression> placing = new ArrayList<>();
    for (int i : placement.indexes(layout.groupingColumns())) {
      placing.add(entries.groupingKey().get(i));
    }
    Expression partition =
        new HashPartitioning(seq(placing), numPartitions).partitionIdExpression();
    return new Bound(
        project(entries.groupingKey()),
        project(entries.entryKey()),
        entries.secondaryKey() == null ? null : project(entries.secondaryKey()),
        project(entries.value()),
        project(List.of(partition)));
  }

  /**
   * The inverse of the encoding: a projection from a store entry, a row of {@code key} (the
   * entry's key, of {@code keySchema}), {@code value} (of {@code valueSchema}) and the state
   * partition, to the flat data columns of the table that shows it, then the partition when
   * {@code withPartition}. Each column is read where the layout puts it.
   */
  UnsafeProjection decoder(StructType keySchema, StructType valueSchema, boolean withPartition) {
    Entries entries =
        layout.entries(i -> new BoundReference(i, types[i], true)); // markers: column i
    Expression[] columns = new Expression[types.length];
    locate(entries.entryKey(), new BoundReference(0, keySchema, false), keySchema, columns);
    locate(entries.value(), new BoundReference(1, valueSchema, false), valueSchema, columns);
    for (int i = 0; i < columns.length; i++) {
      if (columns[i] == null) {
        throw new IllegalStateException(
            "[SAVEPOINT_INTERNAL] flat column " + names[i] + " is in no field of its store");
      }
    }
    List<Expression> out = new ArrayList<>(List.of(columns));
    if (withPartition) out.add(new BoundReference(2, DataTypes.IntegerType, false));
    return project(out);
  }

  /** How many flat data columns the table has. */
  int columns() {
    return types.length;
  }

  /**
   * Finds the column markers among {@code fields}, the fields of a struct {@code struct} of
   * type {@code type}, and puts the expression that reads each one at its column.
   */
  private static void locate(
      List<Expression> fields, Expression struct, StructType type, Expression[] columns) {
    for (int j = 0; j < fields.size() && j < type.size(); j++) {
      StructField field = type.fields()[j];
      Expression read = new GetStructField(struct, j, Option.apply(field.name()));
      Expression made = fields.get(j);
      if (made instanceof BoundReference marker) {
        columns[marker.ordinal()] = read;
      } else if (made instanceof CreateNamedStruct nested
          && field.dataType() instanceof StructType inner) {
        List<Expression> values = new ArrayList<>();
        List<Expression> pairs = CollectionConverters.asJava(nested.children());
        for (int k = 1; k < pairs.size(); k += 2) values.add(pairs.get(k));
        locate(values, read, inner, columns);
      }
    }
  }

  /** Flat column {@code flat} of an incoming row, cast to the table's type where it differs. */
  private Expression column(int flat) {
    int source = sources[flat];
    DataType from = given.fields()[source].dataType();
    Expression ref = new BoundReference(source, from, true);
    return from.equals(types[flat]) ? ref : new Cast(ref, types[flat], Option.apply(timeZone));
  }

  static scala.collection.immutable.Seq<Expression> seq(List<Expression> exprs) {
    return CollectionConverters.asScala(exprs).toList();
  }

  static UnsafeProjection project(List<Expression> exprs) {
    return UnsafeProjection.create(seq(exprs));
  }

  /** A struct of {@code schema}'s field names over {@code fields}. */
  static Expression struct(StructType schema, List<Expression> fields) {
    List<Expression> pairs = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      pairs.add(Literal.create(schema.fields()[i].name(), DataTypes.StringType));
      pairs.add(fields.get(i));
    }
    return new CreateNamedStruct(seq(pairs));
  }

  /** The expressions that make one row's entries, from its flat columns. */
  record Entries(
      List<Expression> groupingKey,
      List<Expression> entryKey,
      List<Expression> secondaryKey,
      List<Expression> value) {}

  /** How one kind of state lays its keys and values out in flat columns. */
  interface Layout extends Serializable {
    /** The flat data columns, in table order. */
    List<String> columns();

    /** How many leading columns are keys (exact type, not NULL, unique together). */
    int strictColumns();

    /** How many leading columns are the grouping key (hashed to the state partition). */
    int groupingColumns();

    Entries entries(IntFunction<Expression> column);
  }

  /**
   * A store of key and value rows (aggregation, dedup, groupstate): the key fields, then the
   * value fields (a {@code groupState} struct flattened, void fields written as NULL), the walk
   * of {@link FlatSchema}.
   */
  record StoreLayout(StructType keySchema, StructType valueSchema) implements Layout {
    StoreLayout(StoreSpec spec) {
      this(spec.keySchema(), spec.valueSchema());
    }

    @Override
    public List<String> columns() {
      List<String> leaves = new ArrayList<>(FlatSchema.leafNames(keySchema));
      leaves.addAll(FlatSchema.leafNames(valueSchema));
      return leaves;
    }

    @Override
    public int strictColumns() {
      return FlatSchema.leafNames(keySchema).size();
    }

    @Override
    public int groupingColumns() {
      return strictColumns();
    }

    @Override
    public Entries entries(IntFunction<Expression> column) {
      int[] next = {0};
      List<Expression> key = fields(keySchema, column, next);
      return new Entries(key, key, null, fields(valueSchema, column, next));
    }

    private static List<Expression> fields(
        StructType struct, IntFunction<Expression> column, int[] next) {
      List<Expression> exprs = new ArrayList<>();
      for (StructField field : struct.fields()) {
        if (field.dataType() instanceof NullType) {
          exprs.add(Literal.create(null, NullType$.MODULE$));
        } else if (FlatSchema.isGroupState(field)) {
          StructType inner = (StructType) field.dataType();
          exprs.add(struct(inner, fields(inner, column, next)));
        } else {
          exprs.add(column.apply(next[0]++));
        }
      }
      return exprs;
    }
  }

  /**
   * A stream-stream join side, read and written as its rows: the join key fields (the
   * {@code keyWithIndexToValue} key without its {@code index}), then the row's fields (the value
   * without the {@code matched} flag of join state format 2, which a written row gets as false:
   * not joined yet, as a row that just arrived). Keys repeat: a key holds a list of rows.
   */
  record JoinSideLayout(StoreLayout side, boolean matched) implements Layout {
    static JoinSideLayout of(StoreSpec values) {
      StructType key = values.keySchema();
      StructType value = values.valueSchema();
      boolean matched =
          value.size() > 0
              && value.fields()[value.size() - 1].name().equals("matched")
              && value.fields()[value.size() - 1].dataType().equals(DataTypes.BooleanType);
      StructType rowKey = new StructType(Arrays.copyOf(key.fields(), key.size() - 1));
      StructType row =
          matched ? new StructType(Arrays.copyOf(value.fields(), value.size() - 1)) : value;
      return new JoinSideLayout(new StoreLayout(rowKey, row), matched);
    }

    @Override
    public List<String> columns() {
      return side.columns();
    }

    @Override
    public int strictColumns() {
      return side.strictColumns();
    }

    @Override
    public int groupingColumns() {
      return side.groupingColumns();
    }

    @Override
    public Entries entries(IntFunction<Expression> column) {
      Entries row = side.entries(column);
      List<Expression> value = new ArrayList<>(row.value());
      if (matched) value.add(Literal.create(false, DataTypes.BooleanType));
      return new Entries(row.groupingKey(), row.groupingKey(), null, value);
    }
  }

  /**
   * A transformWithState variable: grouping key fields, then the value fields (value state),
   * the element fields (list), the map key then map value fields (map), or
   * {@code expiration_timestamp_ms} (timers).
   */
  record VariableLayout(TwsVariable variable) implements Layout {
    @Override
    public List<String> columns() {
      List<String> leaves = new ArrayList<>(List.of(variable.groupingKey().fieldNames()));
      switch (variable.kind()) {
        case VALUE, LIST -> leaves.addAll(List.of(variable.value().fieldNames()));
        case MAP -> {
          leaves.addAll(List.of(variable.entryKey().fieldNames()));
          leaves.addAll(List.of(variable.value().fieldNames()));
        }
        case TIMERS -> leaves.add("expiration_timestamp_ms");
      }
      return leaves;
    }

    @Override
    public int strictColumns() {
      return switch (variable.kind()) {
        case MAP -> groupingColumns() + variable.entryKey().size();
        case TIMERS -> groupingColumns() + 1;
        default -> groupingColumns();
      };
    }

    @Override
    public int groupingColumns() {
      return variable.groupingKey().size();
    }

    @Override
    public Entries entries(IntFunction<Expression> column) {
      int k = groupingColumns();
      List<Expression> key = columns(column, 0, k);
      Expression keyStruct = struct(variable.groupingKey(), key);
      return switch (variable.kind()) {
        case MAP -> {
          int u = variable.entryKey().size();
          yield new Entries(
              key,
              List.of(keyStruct, struct(variable.entryKey(), columns(column, k, u))),
              null,
              columns(column, k + u, variable.value().size()));
        }
        case TIMERS -> {
          Expression ts = column.apply(k);
          yield new Entries(
              key,
              List.of(keyStruct, ts),
              List.of(ts, keyStruct),
              List.of(Literal.create(null, NullType$.MODULE$)));
        }
        default -> new Entries(key, key, null, columns(column, k, variable.value().size()));
      };
    }

    private static List<Expression> columns(IntFunction<Expression> column, int from, int count) {
      List<Expression> out = new ArrayList<>();
      for (int i = from; i < from + count; i++) out.add(column.apply(i));
      return out;
    }
  }

  /** The projections of one task; rows they return are reused, copy what you keep. */
  final class Bound {
    private final UnsafeProjection groupingKey;
    private final UnsafeProjection entryKey;
    private final UnsafeProjection secondaryKey;
    private final UnsafeProjection value;
    private final UnsafeProjection partition;

    private Bound(
        UnsafeProjection groupingKey,
        UnsafeProjection entryKey,
        UnsafeProjection secondaryKey,
        UnsafeProjection value,
        UnsafeProjection partition) {
      this.groupingKey = groupingKey;
      this.entryKey = entryKey;
      this.secondaryKey = secondaryKey;
      this.value = value;
      this.partition = partition;
    }

    /** The grouping key row (the key of list families and of the row counter). */
    UnsafeRow groupingKey(InternalRow row) {
      return groupingKey.apply(row);
    }

    /** The key in the edited store or main column family (composite for maps and timers). */
    UnsafeRow entryKey(InternalRow row) {
      return entryKey.apply(row);
    }

    /** The timers' timestamp-to-key index key. */
    UnsafeRow secondaryKey(InternalRow row) {
      return secondaryKey.apply(row);
    }

    /** The value, list element, map value, or the timers' empty row. */
    UnsafeRow value(InternalRow row) {
      return value.apply(row);
    }

    /**
     * pmod(hash(grouping key, or the placing columns of a non-strict query), numPartitions): the
     * state partition the query uses.
     */
    int partition(InternalRow row) {
      return partition.apply(row).getInt(0);
    }

    /** The flat name of the first NULL key column, or null. */
    String nullKeyColumn(InternalRow row) {
      for (int i = 0; i < strict; i++) {
        if (row.isNullAt(sources[i])) return names[i];
      }
      return null;
    }

    /**
     * "user=alice, item=apple" style rendering of the key columns of a row, for messages: each
     * value as {@code Dataset.show} prints it (a window as {@code {2024-01-01 10:00:00, ...}},
     * in the session's time zone), not as Spark's internal bytes.
     */
    String describe(InternalRow row) {
      StringBuilder out = new StringBuilder();
      scala.Option<String> zone =
          scala.Option.apply(org.apache.spark.sql.internal.SQLConf.get().sessionLocalTimeZone());
      for (int i = 0; i < strict; i++) {
        if (out.length() > 0) out.append(", ");
        DataType type = given.fields()[sources[i]].dataType();
        Object v = row.isNullAt(sources[i]) ? null : row.get(sources[i], type);
        Object shown =
            new org.apache.spark.sql.catalyst.expressions.ToPrettyString(
                    new org.apache.spark.sql.catalyst.expressions.Literal(v, type), zone)
                .eval(null);
        out.append(names[i]).append('=').append(shown);
      }
      return out.toString();
    }
  }
}
