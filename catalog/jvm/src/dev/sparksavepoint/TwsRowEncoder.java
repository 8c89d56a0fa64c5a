package dev.sparksavepoint;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.CreateNamedStruct;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.LongType$;
import org.apache.spark.sql.types.NullType$;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Turns the flat rows a write statement gives to a transformWithState table into the rows of
 * its column families, with UnsafeProjections of the column families' own schemas (the same
 * projections Spark's state variable encoders apply), and computes each row's state partition
 * as the query's shuffle does: Spark's HashPartitioning on the grouping key columns.
 *
 * <p>Flat columns (as {@link FlatSchema} presents Spark's state reader): grouping key fields,
 * then the value fields (value state), the element fields (list), the map key then map value
 * fields (map), or {@code expiration_timestamp_ms} (timers). Grouping key, map key and timer
 * timestamp columns must have exactly their type; values may be widened without loss.
 */
final class TwsRowEncoder implements Serializable {
  private final TwsVariable variable;
  private final StructType given;
  private final int[] sources;
  private final DataType[] types;
  private final String[] names;
  private final int numPartitions;
  private final String timeZone;

  private TwsRowEncoder(TwsVariable variable, StructType given, int[] sources, DataType[] types,
      String[] names, int numPartitions, String timeZone) {
    this.variable = variable;
    this.given = given;
    this.sources = sources;
    this.types = types;
    this.names = names;
    this.numPartitions = numPartitions;
    this.timeZone = timeZone;
  }

  /** Validates the given columns against the table and builds the encoder (driver side). */
  static TwsRowEncoder create(WritePlan plan, StructType table, StructType given,
      String timeZone) {
    TwsVariable variable = plan.variable();
    List<String> leaves = new ArrayList<>(List.of(variable.groupingKey().fieldNames()));
    int strict = leaves.size();
    switch (variable.kind()) {
      case VALUE, LIST -> leaves.addAll(List.of(variable.value().fieldNames()));
      case MAP -> {
        leaves.addAll(List.of(variable.entryKey().fieldNames()));
        strict = leaves.size();
        leaves.addAll(List.of(variable.value().fieldNames()));
      }
      case TIMERS -> {
        leaves.add("expiration_timestamp_ms");
        strict = leaves.size();
      }
    }
    DataType[] types = new DataType[leaves.size()];
    String[] names = new String[leaves.size()];
    for (int i = 0; i < types.length; i++) {
      StructField column = table.fields()[i];
      if (!column.name().equals(leaves.get(i)) && !column.name().endsWith("_" + leaves.get(i))) {
        throw new IllegalStateException("[SAVEPOINT_INTERNAL] flat column " + column.name()
            + " does not match state field " + leaves.get(i));
      }
      types[i] = column.dataType();
      names[i] = column.name();
    }
    int[] sources = IncomingColumns.match(plan, table, strict, given);
    return new TwsRowEncoder(variable, given, sources, types, names,
        plan.edited().numPartitions(), timeZone);
  }

  /** The given column names that hold the grouping key (the write's clustering). */
  String[] keyColumnNames() {
    String[] out = new String[variable.groupingKey().size()];
    for (int i = 0; i < out.length; i++) out[i] = given.fields()[sources[i]].name();
    return out;
  }

  /** Code-generated projections for one task. */
  Bound bind() {
    int k = variable.groupingKey().size();
    List<Expression> key = columns(0, k);
    Expression keyStruct = struct(variable.groupingKey(), key);
    List<Expression> entry;
    List<Expression> value;
    List<Expression> secondary = null;
    int[] strict;
    switch (variable.kind()) {
      case MAP -> {
        int u = variable.entryKey().size();
        entry = List.of(keyStruct, struct(variable.entryKey(), columns(k, u)));
        value = columns(k + u, variable.value().size());
        strict = range(0, k + u);
      }
      case TIMERS -> {
        Expression ts = column(k);
        entry = List.of(keyStruct, ts);
        secondary = List.of(ts, keyStruct);
        value = List.of(Literal.create(null, NullType$.MODULE$));
        strict = range(0, k + 1);
      }
      default -> {
        entry = key;
        value = columns(k, variable.value().size());
        strict = range(0, k);
      }
    }
    Expression partition = new HashPartitioning(seq(key), numPartitions).partitionIdExpression();
    UnsafeProjection inverse = variable.kind() == TwsVariable.Kind.TIMERS
        ? timerInverse(variable.groupingKey()) : null;
    return new Bound(project(key), project(entry), secondary == null ? null : project(secondary),
        project(value), project(List.of(partition)), inverse, strict, names);
  }

  private List<Expression> columns(int from, int count) {
    List<Expression> out = new ArrayList<>();
    for (int i = from; i < from + count; i++) out.add(column(i));
    return out;
  }

  private Expression column(int flat) {
    int source = sources[flat];
    DataType from = given.fields()[source].dataType();
    Expression ref = new BoundReference(source, from, true);
    return from.equals(types[flat]) ? ref : new Cast(ref, types[flat], Option.apply(timeZone));
  }

  private static Expression struct(StructType schema, List<Expression> fields) {
    List<Expression> pairs = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      pairs.add(Literal.create(schema.fields()[i].name(), DataTypes.StringType));
      pairs.add(fields.get(i));
    }
    return new CreateNamedStruct(seq(pairs));
  }

  private static int[] range(int from, int to) {
    int[] out = new int[to - from];
    for (int i = 0; i < out.length; i++) out[i] = from + i;
    return out;
  }

  private static scala.collection.immutable.Seq<Expression> seq(List<Expression> exprs) {
    return CollectionConverters.asScala(exprs).toList();
  }

  private static UnsafeProjection project(List<Expression> exprs) {
    return UnsafeProjection.create(seq(exprs));
  }

  /** The projections of one task; rows they return are reused, copy what you keep. */
  static final class Bound {
    private final UnsafeProjection groupingKey;
    private final UnsafeProjection entryKey;
    private final UnsafeProjection secondaryKey;
    private final UnsafeProjection value;
    private final UnsafeProjection partition;
    private final UnsafeProjection inverse;
    private final int[] strict;
    private final String[] names;

    Bound(UnsafeProjection groupingKey, UnsafeProjection entryKey, UnsafeProjection secondaryKey,
        UnsafeProjection value, UnsafeProjection partition, UnsafeProjection inverse,
        int[] strict, String[] names) {
      this.groupingKey = groupingKey;
      this.entryKey = entryKey;
      this.secondaryKey = secondaryKey;
      this.value = value;
      this.partition = partition;
      this.inverse = inverse;
      this.strict = strict;
      this.names = names;
    }

    /** The grouping key row (the key of value and list families and of the row counter). */
    UnsafeRow groupingKey(InternalRow row) {
      return groupingKey.apply(row);
    }

    /** The key in the main column family (composite for maps and timers). */
    UnsafeRow entryKey(InternalRow row) {
      return entryKey.apply(row);
    }

    /** The timers' timestamp-to-key index key. */
    UnsafeRow secondaryKey(InternalRow row) {
      return secondaryKey.apply(row);
    }

    /** The timers' index key of a key-to-timestamp key read from the store. */
    UnsafeRow secondaryOf(UnsafeRow primary) {
      return inverse.apply(primary);
    }

    /** The value, list element, map value, or the timers' empty row. */
    UnsafeRow value(InternalRow row) {
      return value.apply(row);
    }

    /** pmod(hash(grouping key), numPartitions): the state partition the query uses. */
    int partition(InternalRow row) {
      return partition.apply(row).getInt(0);
    }

    /** The flat name of the first NULL key column (grouping key, map key, timestamp), or null. */
    String nullKeyColumn(InternalRow row, int[] sources) {
      for (int i : strict) {
        if (row.isNullAt(sources[i])) return names[i];
      }
      return null;
    }

    /** "user=alice, item=apple" style rendering of the key columns of a row, for messages. */
    String describe(InternalRow row, int[] sources, StructType given) {
      StringBuilder out = new StringBuilder();
      for (int i : strict) {
        if (out.length() > 0) out.append(", ");
        DataType type = given.fields()[sources[i]].dataType();
        Object v = row.isNullAt(sources[i]) ? null : row.get(sources[i], type);
        out.append(names[i]).append('=').append(v);
      }
      return out.toString();
    }
  }

  int[] sources() {
    return sources;
  }

  StructType given() {
    return given;
  }

  /**
   * From a key-to-timestamp key {@code struct<key, expiryTimestampMs>} to its timestamp-to-key
   * index key {@code struct<expiryTimestampMs, key>}.
   */
  static UnsafeProjection timerInverse(StructType groupingKey) {
    return project(List.of(new BoundReference(1, LongType$.MODULE$, false),
        new BoundReference(0, groupingKey, true)));
  }

  /** An empty-value row as TimerStateImpl writes it: one NULL field of type void. */
  static UnsafeRow emptyRow() {
    return UnsafeProjection.create(new DataType[] {NullType$.MODULE$})
        .apply(new GenericInternalRow(1)).copy();
  }
}
