package dev.sparksavepoint.sql;

import dev.sparksavepoint.catalog.FlatStateTable;
import dev.sparksavepoint.errors.Errors;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.types.IntegralType;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code savepoint_diff(table, from [, to])}: what changed in a state table between two points
 * of its query, each a batch of the table's checkpoint (a number) or the folder of another
 * checkpoint or savepoint of the same query (its last batch); {@code to} defaults to the table's
 * own batch. One row per change:
 *
 * <ul>
 *   <li>where entries have a key of their own (aggregations, dedup, groupsWithState, value and map
 *       variables, timers): {@code change_type} ({@code insert}, {@code update}, {@code delete}),
 *       the key columns, and the value columns before and after as structs {@code before} and
 *       {@code after} (NULL where the entry is absent; no structs for a state without values);
 *   <li>where rows repeat their key (list elements, a join side's rows): {@code change_type}
 *       ({@code insert}, {@code delete}) and the row, each repeated row as often as its count
 *       changed.
 * </ul>
 *
 * <p>The plan is SQL over the table's own reads ({@code VERSION AS OF}, {@code savepoint_state}),
 * resolved with the statement that calls the function: its filters reach the reads.
 *
 * <pre>
 *   SELECT * FROM savepoint_diff('savepoint.agg_0.default', 3, 7);
 *   SELECT * FROM savepoint_diff('savepoint.agg_0.default', '/savepoints/before-fix');
 * </pre>
 */
final class StateDiff {
  static final String NAME = "savepoint_diff";
  static final String USAGE = "table, from [, to]";

  private static final String IN_FROM = "`__savepoint_in_from`";
  private static final String IN_TO = "`__savepoint_in_to`";
  private static final String PID = "`__savepoint_partition`";
  private static final String VALUE = "`__savepoint_value`";
  private static final String PARTITION = "`partition_id`";

  private final String table;
  private final long batch;
  private final String uid;
  private final String state;
  private final List<String> columns;
  private final List<String> key;
  private final FlatStateTable loaded;

  private StateDiff(String table, FlatStateTable flat) {
    this.table = table;
    this.loaded = flat;
    this.batch = Long.parseLong(flat.properties().get("batch_id"));
    this.uid = flat.properties().get("uid");
    this.state = flat.name().substring(flat.name().lastIndexOf('.') + 1);
    this.columns = List.of(flat.schema().fieldNames());
    this.key = flat.rowKeyColumns();
  }

  /**
   * The diff of state table {@code name} (its batch, uid, state and columns), loaded once for
   * table function {@code function} (named in a refusal).
   */
  static StateDiff of(SparkSession spark, String function, String name) {
    List<String> parts = qualified(spark, name);
    String quoted = String.join(".", parts.stream().map(StateDiff::identifier).toList());
    return new StateDiff(quoted, load(spark, function, name, parts));
  }

  /** The state table, as loaded. */
  FlatStateTable table() {
    return loaded;
  }

  /** The table's batch when it was loaded (its last committed one). */
  long batch() {
    return batch;
  }

  /**
   * The changes batch {@code batch} made, with its id and the state partition of each row:
   * {@code batch_id, change_type}, the key columns and the value columns after the change (NULL
   * for a delete), or the whole row where rows repeat their key, then {@code partition_id}.
   */
  String batchChanges(long batch) {
    String before = table + " VERSION AS OF " + Math.max(batch - 1, 0);
    String after = table + " VERSION AS OF " + batch;
    String changed =
        key.isEmpty()
            ? rowsSql(withPartition(before, batch == 0), withPartition(after, false))
            : entriesSql(before, batch == 0, after, true);
    List<String> select =
        new ArrayList<>(List.of("CAST(" + batch + " AS BIGINT) AS batch_id", "change_type"));
    if (key.isEmpty()) {
      for (String c : columns) select.add(identifier(c));
    } else {
      for (String k : key) select.add(identifier(k));
      for (String v : values()) select.add("after." + identifier(v) + " AS " + identifier(v));
    }
    select.add(PARTITION);
    return "SELECT " + String.join(", ", select) + " FROM (" + changed + ")";
  }

  /** A subquery of {@code relation}'s rows with their partition; none when {@code empty}. */
  private static String withPartition(String relation, boolean empty) {
    return "(SELECT *, " + PARTITION + " FROM " + relation + (empty ? " WHERE false" : "") + ")";
  }

  private List<String> values() {
    return columns.stream().filter(c -> !key.contains(c)).toList();
  }

  /** The (unresolved) plan of {@code savepoint_diff(args)}. */
  static LogicalPlan plan(Seq<Expression> args) {
    SavepointExtensions.checkArity(NAME, args, 2, 3, USAGE);
    SparkSession spark = SparkSession.active();
    String name = SavepointExtensions.literal(args, 0);
    StateDiff diff = of(spark, NAME, name);
    String from = diff.point(args.apply(1), 2);
    String to =
        args.size() > 2
            ? diff.point(args.apply(2), 3)
            : diff.table + " VERSION AS OF " + diff.batch;
    String sql = diff.sql(from, to);
    return SavepointExtensions.parsed(spark, NAME, sql);
  }

  /**
   * The state table {@code name} names ({@code catalog.uid.state}, or {@code uid.state}), whose
   * {@link #qualified} parts are {@code parts}.
   */
  private static FlatStateTable load(
      SparkSession spark, String function, String name, List<String> parts) {
    Table table = null;
    if (parts.size() == 3) {
      CatalogPlugin catalog = catalog(spark, parts.get(0));
      if (catalog instanceof TableCatalog tables) {
        try {
          table = tables.loadTable(Identifier.of(new String[] {parts.get(1)}, parts.get(2)));
        } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
          throw Errors.analysis("SAVEPOINT_NO_SUCH_STATE", e.getMessage());
        }
      }
    }
    if (table instanceof FlatStateTable flat) return flat;
    throw Errors.analysis(
        "SAVEPOINT_BAD_ARGUMENTS",
        function
            + "('"
            + name
            + "', ...) names no state table: its first argument is a table"
            + " <catalog>.<uid>.<state> of a savepoint catalog, e.g. "
            + function
            + "('savepoint.agg_0.default', 3).");
  }

  /** The catalog {@code name}, or null when there is none of that name. */
  private static CatalogPlugin catalog(SparkSession spark, String name) {
    try {
      return spark.sessionState().catalogManager().catalog(name);
    } catch (Exception e) { // CatalogNotFoundException, which Scala throws undeclared
      return null;
    }
  }

  /** The parts of {@code name}, the current catalog first for {@code uid.state}; none if none. */
  private static List<String> qualified(SparkSession spark, String name) {
    List<String> parts;
    try {
      parts =
          new ArrayList<>(
              CollectionConverters.asJava(
                  spark
                      .sessionState()
                      .sqlParser()
                      .parseMultipartIdentifier(name == null ? "" : name)));
    } catch (Exception e) { // ParseException: no name
      return new ArrayList<>();
    }
    if (parts.size() == 2) {
      parts.add(0, spark.sessionState().catalogManager().currentCatalog().name());
    }
    return parts;
  }

  /**
   * The rows of one point, argument {@code position}: a batch of the table's checkpoint (a
   * number), or another checkpoint or savepoint folder of the query, read at its last batch.
   */
  private String point(Expression arg, int position) {
    if (!arg.foldable() || arg.eval(null) == null) {
      throw SavepointExtensions.badArgument(
          NAME,
          USAGE,
          position,
          "a batch id or the folder of a checkpoint or savepoint",
          arg.sql());
    }
    String value = arg.eval(null).toString().trim();
    if (arg.dataType() instanceof IntegralType || value.matches("\\d+")) {
      return table + " VERSION AS OF " + value;
    }
    List<String> aliases = columns.stream().map(StateDiff::identifier).toList();
    return "savepoint_state("
        + String.join(", ", List.of(string(value), string(uid), string(state)))
        + ") AS p("
        + String.join(", ", aliases)
        + ")";
  }

  private String sql(String from, String to) {
    return key.isEmpty() ? rowsSql(from, to) : entriesSql(from, false, to, false);
  }

  /** Rows that repeat their key: the rows of each point the other does not have (EXCEPT ALL). */
  private static String rowsSql(String from, String to) {
    return "SELECT 'delete' AS change_type, d.* FROM (SELECT * FROM "
        + from
        + " EXCEPT ALL SELECT * FROM "
        + to
        + ") d UNION ALL SELECT 'insert' AS change_type, i.* FROM (SELECT * FROM "
        + to
        + " EXCEPT ALL SELECT * FROM "
        + from
        + ") i";
  }

  /**
   * Entries with a key: both points' entries as one union, grouped by the key (null-safe, as
   * {@code <=>}), kept where presence or values differ; {@code fromEmpty}: no entries at {@code
   * from} (before batch 0); {@code withPartition}: each row ends in its state partition ({@code
   * partition_id}). A union grouped by the key, not a full outer join: a filter on key columns
   * goes through the grouping and the union down to both reads, which look the keys up.
   */
  private String entriesSql(String from, boolean fromEmpty, String to, boolean withPartition) {
    List<String> values = values();
    List<String> keys = key.stream().map(StateDiff::identifier).toList();
    String partition = withPartition ? ", " + PARTITION + " AS " + PID : "";
    String value = values.isEmpty() ? "" : ", " + struct(values) + " AS " + VALUE;
    List<String> grouped = new ArrayList<>(keys);
    grouped.add("max(" + IN_FROM + ") AS " + IN_FROM);
    grouped.add("max(" + IN_TO + ") AS " + IN_TO);
    if (!values.isEmpty()) {
      grouped.add("first(" + VALUE + ") FILTER (WHERE " + IN_FROM + ") AS before");
      grouped.add("first(" + VALUE + ") FILTER (WHERE " + IN_TO + ") AS after");
    }
    if (withPartition) {
      grouped.add(
          "coalesce(first("
              + PID
              + ") FILTER (WHERE "
              + IN_TO
              + "), first("
              + PID
              + ") FILTER (WHERE "
              + IN_FROM
              + ")) AS "
              + PARTITION);
    }
    List<String> select = new ArrayList<>();
    select.add(
        "CASE WHEN "
            + IN_TO
            + " IS NULL THEN 'delete' WHEN "
            + IN_FROM
            + " IS NULL THEN 'insert' ELSE 'update' END AS change_type");
    select.addAll(keys);
    if (!values.isEmpty()) select.addAll(List.of("before", "after"));
    if (withPartition) select.add(PARTITION);
    String where = IN_FROM + " IS NULL OR " + IN_TO + " IS NULL";
    if (!values.isEmpty()) where += " OR NOT (before <=> after)";
    String side = "SELECT " + String.join(", ", keys) + value + partition;
    return "SELECT "
        + String.join(", ", select)
        + " FROM (SELECT "
        + String.join(", ", grouped)
        + " FROM ("
        + side
        + ", true AS "
        + IN_FROM
        + ", CAST(NULL AS BOOLEAN) AS "
        + IN_TO
        + " FROM "
        + from
        + (fromEmpty ? " WHERE false" : "")
        + " UNION ALL "
        + side
        + ", CAST(NULL AS BOOLEAN), true FROM "
        + to
        + ") GROUP BY "
        + String.join(", ", keys)
        + ") WHERE "
        + where;
  }

  /** The value columns as one struct, named as the columns. */
  private static String struct(List<String> values) {
    List<String> fields = new ArrayList<>();
    for (String v : values) fields.add(string(v) + ", " + identifier(v));
    return "named_struct(" + String.join(", ", fields) + ")";
  }

  private static String identifier(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  private static String string(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
