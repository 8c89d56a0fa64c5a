package dev.sparksavepoint.read;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Flat columns over the nested rows of Spark's {@code statestore} reader: the fields of
 * {@code key}, {@code value} (and of a {@code groupState} inside it), {@code list_element},
 * {@code user_map_key} and {@code user_map_value} become top-level columns; other columns
 * ({@code expiration_timestamp_ms}, {@code partition_id}) stay as they are. Void placeholder
 * fields (dedup's {@code __dummy__}) are dropped. A name already taken is prefixed with its
 * source column, e.g. {@code value_user}.
 */
public final class FlatSchema implements Serializable {
  private static final Set<String> EXPANDED =
      Set.of("key", "value", "list_element", "user_map_key", "user_map_value");

  private final StructType source;
  private final List<int[]> paths = new ArrayList<>();
  private final List<StructField> fields = new ArrayList<>();

  /** Metadata key of a flat column: the name of the state field it shows. */
  public static final String STATE_FIELD = "state_field";

  private final List<String> valueNames;
  private int valueLeaf;

  public FlatSchema(StructType source) {
    this(source, List.of());
  }

  /**
   * Flat columns over {@code source}, the leaves of {@code value} named {@code valueNames} in
   * order where one is given (not null): the query's names for an aggregation's buffers.
   */
  public FlatSchema(StructType source, List<String> valueNames) {
    this.source = source;
    this.valueNames = valueNames;
    Set<String> taken = new HashSet<>();
    StructField[] top = source.fields();
    for (int i = 0; i < top.length; i++) {
      StructField column = top[i];
      if (EXPANDED.contains(column.name()) && column.dataType() instanceof StructType struct) {
        expand(struct, new int[] {i}, column.name(), taken);
      } else {
        add(column, new int[] {i}, "", taken);
      }
    }
  }

  /**
   * The names of the flat columns a key or value struct becomes, in order: void fields dropped,
   * a {@code groupState} struct expanded (the walk a write's row encoder mirrors).
   */
  public static List<String> leafNames(StructType struct) {
    List<String> names = new ArrayList<>();
    for (StructField field : struct.fields()) {
      if (field.dataType() instanceof NullType) continue;
      if (isGroupState(field)) {
        names.addAll(leafNames((StructType) field.dataType()));
      } else {
        names.add(field.name());
      }
    }
    return names;
  }

  /** True for the {@code groupState} struct of [flatMap|applyInPandas]GroupsWithState values. */
  public static boolean isGroupState(StructField field) {
    return field.name().equals("groupState") && field.dataType() instanceof StructType;
  }

  private void expand(StructType struct, int[] prefix, String origin, Set<String> taken) {
    StructField[] nested = struct.fields();
    for (int j = 0; j < nested.length; j++) {
      StructField field = nested[j];
      int[] path = append(prefix, j);
      if (field.dataType() instanceof NullType) continue;
      if (isGroupState(field)) {
        expand((StructType) field.dataType(), path, origin, taken);
      } else {
        add(field, path, origin, taken);
      }
    }
  }

  private void add(StructField field, int[] path, String origin, Set<String> taken) {
    String name = field.name();
    if (origin.equals("value")) {
      int leaf = valueLeaf++;
      if (leaf < valueNames.size() && valueNames.get(leaf) != null) name = valueNames.get(leaf);
    }
    if (taken.contains(name.toLowerCase())) name = origin + "_" + name;
    taken.add(name.toLowerCase());
    String comment = origin.isEmpty()
        ? (field.name().equals("partition_id") ? "state partition" : field.name())
        : "state " + origin.replace('_', ' ') + " field";
    paths.add(path);
    Metadata metadata = new org.apache.spark.sql.types.MetadataBuilder()
        .putString(STATE_FIELD, field.name()).build();
    fields.add(new StructField(name, field.dataType(), true, metadata).withComment(comment));
  }

  private static int[] append(int[] prefix, int index) {
    int[] path = java.util.Arrays.copyOf(prefix, prefix.length + 1);
    path[prefix.length] = index;
    return path;
  }

  public StructType source() {
    return source;
  }

  public StructType schema() {
    return new StructType(fields.toArray(new StructField[0]));
  }

  /**
   * The flat columns that show the fields of the {@code key} column, in the key's field order;
   * null when there is no key struct or one of its fields has no column of its own (a void
   * field, a {@code groupState} struct).
   */
  public List<String> keyColumns() {
    if (source.getFieldIndex("key").isEmpty()
        || !(source.apply("key").dataType() instanceof StructType key)) {
      return null;
    }
    int top = (Integer) source.getFieldIndex("key").get();
    String[] names = new String[key.size()];
    for (int i = 0; i < paths.size(); i++) {
      int[] path = paths.get(i);
      if (path[0] == top && path.length == 2) names[path[1]] = fields.get(i).name();
    }
    for (String name : names) {
      if (name == null) return null;
    }
    return List.of(names);
  }

  /** A projection from source rows to flat rows (code-generated, one per reader). */
  public UnsafeProjection projection() {
    List<Expression> exprs = new ArrayList<>();
    for (int[] path : paths) {
      StructField top = source.fields()[path[0]];
      Expression expr = new BoundReference(path[0], top.dataType(), true);
      DataType type = top.dataType();
      for (int k = 1; k < path.length; k++) {
        StructField field = ((StructType) type).fields()[path[k]];
        expr = new GetStructField(expr, path[k], Option.apply(field.name()));
        type = field.dataType();
      }
      exprs.add(expr);
    }
    return UnsafeProjection.create(CollectionConverters.asScala(exprs).toList());
  }
}
