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
 * ({@code expiration_timestamp_ms}) stay as they are. Void placeholder fields (dedup's
 * {@code __dummy__}) are dropped. A name already taken is prefixed with its source column, e.g.
 * {@code value_user}.
 *
 * <p>The reader's {@code partition_id} is no data column but a metadata column (as Spark's
 * {@code _metadata}): {@code SELECT *} and {@code INSERT *} leave it out, a query that names it
 * gets it last ({@link #pruned}).
 */
public final class FlatSchema implements Serializable {
  /** The metadata column of every state table: the state partition that holds the row. */
  public static final String PARTITION_ID = "partition_id";

  private static final Set<String> EXPANDED =
      Set.of("key", "value", "list_element", "user_map_key", "user_map_value");

  private final StructType source;
  private final List<int[]> paths = new ArrayList<>();
  private final List<StructField> fields = new ArrayList<>();

  /** The reader's partition_id column, or -1 when it has none. */
  private int partitionIndex = -1;

  /** Whether rows carry partition_id after the data columns ({@link #pruned}). */
  private boolean readsPartition;

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
      boolean expanded = EXPANDED.contains(column.name());
      if (column.name().equals(PARTITION_ID)) {
        partitionIndex = i;
      } else if (expanded && column.dataType() instanceof StructType struct) {
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
    String comment =
        origin.isEmpty() ? field.name() : "state " + origin.replace('_', ' ') + " field";
    paths.add(path);
    Metadata metadata =
        new org.apache.spark.sql.types.MetadataBuilder()
            .putString(STATE_FIELD, field.name())
            .build();
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

  /** The data columns: the table's schema. */
  public StructType schema() {
    return new StructType(fields.toArray(new StructField[0]));
  }

  /** The metadata column {@code partition_id} (comment "state partition"), or null if none. */
  public StructField partitionColumn() {
    if (partitionIndex < 0) return null;
    return new StructField(
            PARTITION_ID, source.fields()[partitionIndex].dataType(), false, Metadata.empty())
        .withComment("state partition");
  }

  /**
   * This schema reading the columns {@code required} names: every data column (a superset
   * Spark accepts), and {@code partition_id} after them when it is required and no data column
   * has that name (which then hides it, as Spark hides a metadata column).
   */
  public FlatSchema pruned(StructType required) {
    boolean wanted =
        partitionIndex >= 0
            && List.of(required.fieldNames()).contains(PARTITION_ID)
            && schema().getFieldIndex(PARTITION_ID).isEmpty();
    if (wanted == readsPartition) return this;
    FlatSchema copy = new FlatSchema(source, valueNames);
    copy.readsPartition = wanted;
    return copy;
  }

  /**
   * The flat columns of the change feed of this schema's state ({@link
   * ChangeFeedScan#feedSchema}): {@code batch_id}, {@code change_type}, the key and value columns
   * named as here, then {@code partition_id} as a data column.
   */
  public FlatSchema changes() {
    FlatSchema feed = new FlatSchema(ChangeFeedScan.feedSchema(source), valueNames);
    feed.readsPartition = true;
    return feed;
  }

  /** True when the rows {@link #projection} makes end in {@code partition_id}. */
  public boolean readsPartition() {
    return readsPartition;
  }

  /** The columns of the rows {@link #projection} makes: the data columns, then any metadata. */
  public StructType readSchema() {
    return readsPartition ? schema().add(partitionColumn()) : schema();
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

  /**
   * The flat columns that tell entries apart, in order: the {@link #keyColumns}, then those of a
   * map's {@code user_map_key} and a timer's {@code expiration_timestamp_ms}; empty when the key
   * has no columns of its own.
   */
  public List<String> entryKeyColumns() {
    List<String> key = keyColumns();
    if (key == null) return List.of();
    List<String> out = new ArrayList<>(key);
    for (int i = 0; i < paths.size(); i++) {
      String top = source.fields()[paths.get(i)[0]].name();
      if (top.equals("user_map_key") || top.equals("expiration_timestamp_ms")) {
        out.add(fields.get(i).name());
      }
    }
    return out;
  }

  /**
   * The flat column whose state field carries Spark's watermark (field metadata {@code
   * spark.watermarkDelayMs}, which Spark gives the event-time column of {@code withWatermark}),
   * key columns first; null when no field carries it.
   */
  public StructField watermarkColumn() {
    for (int i = 0; i < paths.size(); i++) {
      if (sourceField(paths.get(i)).metadata().contains(WATERMARK_DELAY)) return fields.get(i);
    }
    return null;
  }

  /** The field metadata key Spark marks a watermarked event-time column with. */
  public static final String WATERMARK_DELAY = "spark.watermarkDelayMs";

  private StructField sourceField(int[] path) {
    StructField field = source.fields()[path[0]];
    for (int k = 1; k < path.length; k++) {
      field = ((StructType) field.dataType()).fields()[path[k]];
    }
    return field;
  }

  /**
   * A projection from source rows to rows of {@link #readSchema} (code-generated, one per
   * reader).
   */
  public UnsafeProjection projection() {
    List<Expression> exprs = new ArrayList<>();
    List<int[]> read = new ArrayList<>(paths);
    if (readsPartition) read.add(new int[] {partitionIndex});
    for (int[] path : read) {
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
