package dev.sparksavepoint;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.CreateNamedStruct;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.NullType$;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Turns the rows a write statement gives (flat columns, matched by {@link IncomingColumns}) into
 * the state's key and value UnsafeRows, byte-identical to Spark's own encoding (an
 * UnsafeProjection with the store's key and value schemas), and computes each row's state
 * partition exactly as the streaming query's shuffle does (Spark's HashPartitioning on the key).
 *
 * <p>The walk over key and value fields mirrors {@link FlatSchema}: void fields (dedup's
 * {@code __dummy__}) are written as NULL, a {@code groupState} struct is rebuilt from its flat
 * columns.
 */
final class StateRowEncoder implements Serializable {
  private final StructType keySchema;
  private final StructType valueSchema;
  private final StructType given;
  private final int[] sources;
  private final DataType[] types;
  private final int numPartitions;
  private final String timeZone;

  private StateRowEncoder(StructType keySchema, StructType valueSchema, StructType given,
      int[] sources, DataType[] types, int numPartitions, String timeZone) {
    this.keySchema = keySchema;
    this.valueSchema = valueSchema;
    this.given = given;
    this.sources = sources;
    this.types = types;
    this.numPartitions = numPartitions;
    this.timeZone = timeZone;
  }

  /** Validates the given columns against the table and builds the encoder (driver side). */
  static StateRowEncoder create(WritePlan plan, StructType table, StructType given,
      String timeZone) {
    StoreSpec spec = plan.edited();
    List<String> leaves = new ArrayList<>();
    leaves(spec.keySchema(), leaves);
    int keyColumns = leaves.size();
    leaves(spec.valueSchema(), leaves);
    DataType[] types = new DataType[leaves.size()];
    for (int i = 0; i < types.length; i++) {
      StructField column = table.fields()[i];
      if (!column.name().equals(leaves.get(i)) && !column.name().endsWith("_" + leaves.get(i))) {
        throw new IllegalStateException("[SAVEPOINT_INTERNAL] flat column " + column.name()
            + " does not match state field " + leaves.get(i));
      }
      types[i] = column.dataType();
    }
    int[] sources = IncomingColumns.match(plan, table, keyColumns, given);
    return new StateRowEncoder(spec.keySchema(), spec.valueSchema(), given, sources, types,
        spec.numPartitions(), timeZone);
  }

  /** Names of the flat columns a struct contributes, in FlatSchema's order. */
  private static void leaves(StructType struct, List<String> out) {
    for (StructField field : struct.fields()) {
      if (field.dataType() instanceof NullType) continue;
      if (isGroupState(field)) {
        leaves((StructType) field.dataType(), out);
      } else {
        out.add(field.name());
      }
    }
  }

  private static boolean isGroupState(StructField field) {
    return field.name().equals("groupState") && field.dataType() instanceof StructType;
  }

  /** The given column names that hold the key, in key order (the write's clustering). */
  String[] keyColumnNames() {
    List<String> leaves = new ArrayList<>();
    leaves(keySchema, leaves);
    String[] names = new String[leaves.size()];
    for (int i = 0; i < names.length; i++) names[i] = given.fields()[sources[i]].name();
    return names;
  }

  /** Key field names, for messages. */
  String[] keyFieldNames() {
    return keySchema.fieldNames();
  }

  /** Code-generated projections for one task. */
  Bound bind() {
    int[] next = {0};
    List<Expression> key = fields(keySchema, next);
    List<Expression> value = fields(valueSchema, next);
    Expression partition = new HashPartitioning(seq(key), numPartitions).partitionIdExpression();
    return new Bound(project(key), project(value), project(List.of(partition)), keySchema);
  }

  private List<Expression> fields(StructType struct, int[] next) {
    List<Expression> exprs = new ArrayList<>();
    for (StructField field : struct.fields()) {
      if (field.dataType() instanceof NullType) {
        exprs.add(Literal.create(null, NullType$.MODULE$));
      } else if (isGroupState(field)) {
        List<Expression> pairs = new ArrayList<>();
        StructType inner = (StructType) field.dataType();
        List<Expression> children = fields(inner, next);
        for (int i = 0; i < children.size(); i++) {
          pairs.add(Literal.create(inner.fields()[i].name(), org.apache.spark.sql.types.DataTypes.StringType));
          pairs.add(children.get(i));
        }
        exprs.add(new CreateNamedStruct(seq(pairs)));
      } else {
        exprs.add(column(next[0]++));
      }
    }
    return exprs;
  }

  private Expression column(int flat) {
    int source = sources[flat];
    DataType from = given.fields()[source].dataType();
    Expression ref = new BoundReference(source, from, true);
    return from.equals(types[flat]) ? ref : new Cast(ref, types[flat], Option.apply(timeZone));
  }

  private static scala.collection.immutable.Seq<Expression> seq(List<Expression> exprs) {
    return CollectionConverters.asScala(exprs).toList();
  }

  private static UnsafeProjection project(List<Expression> exprs) {
    return UnsafeProjection.create(seq(exprs));
  }

  /** The projections of one task; rows they return are reused, copy what you keep. */
  static final class Bound {
    private final UnsafeProjection key;
    private final UnsafeProjection value;
    private final UnsafeProjection partition;
    private final StructType keySchema;

    Bound(UnsafeProjection key, UnsafeProjection value, UnsafeProjection partition,
        StructType keySchema) {
      this.key = key;
      this.value = value;
      this.partition = partition;
      this.keySchema = keySchema;
    }

    UnsafeRow key(InternalRow row) {
      return key.apply(row);
    }

    UnsafeRow value(InternalRow row) {
      return value.apply(row);
    }

    /** pmod(hash(key), numPartitions): the state partition the streaming query uses. */
    int partition(InternalRow row) {
      return partition.apply(row).getInt(0);
    }

    /** Index of the first NULL key field, or -1. */
    int nullField(UnsafeRow keyRow) {
      for (int i = 0; i < keySchema.size(); i++) {
        if (keyRow.isNullAt(i)) return i;
      }
      return -1;
    }

    /** "user=alice" style rendering of a key, for messages. */
    String describe(UnsafeRow keyRow) {
      StringBuilder out = new StringBuilder();
      StructField[] fields = keySchema.fields();
      for (int i = 0; i < fields.length; i++) {
        if (i > 0) out.append(", ");
        Object v = keyRow.isNullAt(i) ? null : keyRow.get(i, fields[i].dataType());
        out.append(fields[i].name()).append('=').append(v);
      }
      return out.toString();
    }
  }
}
