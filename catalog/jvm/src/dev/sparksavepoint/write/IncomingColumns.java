package dev.sparksavepoint.write;

import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.read.FlatSchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.spark.sql.catalyst.expressions.Cast$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataType$;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Matches the columns a write statement gives to a state table's flat columns, on the driver,
 * before anything is written (the table accepts any schema so that Spark inserts no silent casts).
 * Columns match all by name when every given name is a table column, else by position; the metadata
 * column {@code partition_id} may be given too (by name, or last by position) and is ignored: the
 * write recomputes it. Key columns must have the exact type (they decide the state partition;
 * {@code sql.WidenKeys} casts narrower whole numbers before this check); value columns may be
 * widened without loss ({@code Cast.canUpCast}, e.g. INT to BIGINT), never narrowed.
 */
public final class IncomingColumns {
  /**
   * The setting that installs the rule widening key columns ({@code sql.WidenKeys}, with the
   * table functions); named here, not linked, as the sql layer builds on this one.
   */
  public static final String WIDENING_EXTENSION =
      "spark.sql.extensions=dev.sparksavepoint.sql.SavepointExtensions";

  private IncomingColumns() {}

  /**
   * For each column of {@code table}, the index of the given column that fills it.
   *
   * @param keyColumns how many leading flat columns are key columns
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_COLUMN_MISMATCH or
   *     SAVEPOINT_TYPE_MISMATCH
   */
  static int[] match(WritePlan plan, StructType table, int keyColumns, StructType given) {
    List<StructField> data = List.of(table.fields());
    int[] sources = byName(data, given);
    if (sources == null) sources = byPosition(plan, table, data, given);
    for (int i = 0; i < data.size(); i++) {
      checkType(plan, data.get(i), given.fields()[sources[i]], i < keyColumns);
    }
    return sources;
  }

  /**
   * For each column of {@code table}, the index of the given column that fills it, or null when
   * the columns do not line up (then {@link #match} explains why).
   */
  public static int[] sources(StructType table, StructType given) {
    List<StructField> data = List.of(table.fields());
    int[] sources = byName(data, given);
    int n = given.fields().length;
    if (sources != null || (n != data.size() && n != data.size() + 1)) return sources;
    sources = new int[data.size()];
    for (int i = 0; i < sources.length; i++) sources[i] = i;
    return sources;
  }

  /** Matches by name when every given column (but the metadata column) names a table column. */
  private static int[] byName(List<StructField> data, StructType given) {
    List<String> names = new ArrayList<>();
    for (StructField f : given.fields()) names.add(f.name().toLowerCase(Locale.ROOT));
    int[] sources = new int[data.size()];
    for (int i = 0; i < data.size(); i++) {
      sources[i] = names.indexOf(data.get(i).name().toLowerCase(Locale.ROOT));
      if (sources[i] < 0 || names.lastIndexOf(names.get(sources[i])) != sources[i]) return null;
    }
    String metadata = FlatSchema.PARTITION_ID;
    boolean shadowed = data.stream().anyMatch(f -> f.name().equalsIgnoreCase(metadata));
    long extra = names.stream().filter(n -> shadowed || !n.equals(metadata)).count() - data.size();
    return extra == 0 ? sources : null;
  }

  private static int[] byPosition(
      WritePlan plan, StructType table, List<StructField> data, StructType given) {
    int n = given.fields().length;
    if (n != data.size() && n != data.size() + 1) {
      throw Errors.columnMismatch(
          plan.checkpoint(),
          plan.uid(),
          plan.state(),
          "the statement gives " + n + " columns (" + describe(given) + ")",
          describe(table));
    }
    int[] sources = new int[data.size()];
    for (int i = 0; i < sources.length; i++) sources[i] = i;
    return sources;
  }

  private static void checkType(
      WritePlan plan, StructField column, StructField given, boolean key) {
    DataType to = column.dataType();
    DataType from = given.dataType();
    if (DataType$.MODULE$.equalsIgnoreNullability(from, to)) return;
    String name = column.name();
    if (key && from instanceof NullType) {
      throw Errors.nullKeyGiven(plan.checkpoint(), plan.uid(), plan.state(), name);
    }
    if (key) {
      throw Errors.typeMismatch(
          plan.checkpoint(),
          plan.uid(),
          plan.state(),
          name + " (key)",
          to.sql(),
          from.sql(),
          "Key columns take exactly the key type (a narrower whole number"
              + " is widened in sessions with "
              + WIDENING_EXTENSION
              + "), because the key"
              + " decides the state partition: write CAST("
              + given.name()
              + " AS "
              + to.sql()
              + ") if that is what you mean.");
    }
    if (from instanceof NullType || Cast$.MODULE$.canUpCast(from, to)) return;
    throw Errors.typeMismatch(
        plan.checkpoint(),
        plan.uid(),
        plan.state(),
        name,
        to.sql(),
        from.sql(),
        "Converting it could lose data, so it is not done implicitly: write CAST("
            + given.name()
            + " AS "
            + to.sql()
            + ") if that is what you mean.");
  }

  static String describe(StructType schema) {
    return Arrays.stream(schema.fields())
        .map(f -> f.name() + " " + f.dataType().sql())
        .collect(Collectors.joining(", "));
  }
}
