package dev.sparksavepoint.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sparksavepoint.actions.SavepointList;
import dev.sparksavepoint.adapters.CallStatements;
import dev.sparksavepoint.catalog.MetadataTable;
import dev.sparksavepoint.catalog.SavepointCatalog;
import dev.sparksavepoint.errors.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Function1;
import scala.Option;
import scala.Tuple3;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.BoxedUnit;

/**
 * SQL table functions for any session started with
 * {@code spark.sql.extensions=dev.sparksavepoint.sql.SavepointExtensions} (PySpark, spark-sql,
 * the Thrift server alike), reading a checkpoint without configuring a catalog:
 *
 * <pre>
 *   SELECT * FROM savepoint_metadata('/data/ckpt' [, batchId]);
 *   SELECT * FROM savepoint_state('/data/ckpt', 'agg_0', 'default' [, batchId]);
 *   SELECT * FROM savepoint_list('/savepoints');
 *   SELECT * FROM savepoint_diff('savepoint.agg_0.default', 3 [, 7]);   -- see StateDiff
 *   SELECT * FROM savepoint_changes('savepoint.agg_0.default', 3 [, 7]); -- see StateChanges
 * </pre>
 *
 * <p>It also widens narrower whole numbers written into state key columns ({@link WidenKeys}).
 */
public class SavepointExtensions implements Function1<SparkSessionExtensions, BoxedUnit> {
  static final String METADATA = "savepoint_metadata";
  static final String STATE = "savepoint_state";
  static final String LIST = "savepoint_list";

  /** The columns of {@code savepoint_list}, as {@link SavepointList} names them. */
  static final StructType LIST_SCHEMA =
      StructType.fromDDL(
          "path string, query_id string,"
              + " batch_id bigint, taken_at string, committed_at string, source string,"
              + " operators string, provider string, partitions int, rows bigint, bytes bigint,"
              + " writable boolean");

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    tableFunction(
        extensions,
        METADATA,
        "_FUNC_(path [, batchId]) - One row per state table of the streaming checkpoint.",
        "SELECT uid, state FROM _FUNC_('/data/ckpt');",
        SavepointExtensions::metadata);
    tableFunction(
        extensions,
        STATE,
        "_FUNC_(path, uid, state [, batchId]) - The flat rows of one state.",
        "SELECT * FROM _FUNC_('/data/ckpt', 'agg_0', 'default');",
        SavepointExtensions::state);
    tableFunction(
        extensions,
        LIST,
        "_FUNC_(folder) - The savepoints in a folder (itself, or its subfolders).",
        "SELECT path, batch_id FROM _FUNC_('/savepoints');",
        SavepointExtensions::list);
    tableFunction(
        extensions,
        StateDiff.NAME,
        "_FUNC_("
            + StateDiff.USAGE
            + ") - What changed in a state table between two batches, or a batch and another"
            + " checkpoint or savepoint folder of the query.",
        "SELECT * FROM _FUNC_('savepoint.agg_0.default', 3, 7);",
        StateDiff::plan);
    tableFunction(
        extensions,
        StateChanges.NAME,
        "_FUNC_("
            + StateChanges.USAGE
            + ") - The change feed of a state table: what each batch"
            + " changed.",
        "SELECT * FROM _FUNC_('savepoint.agg_0.default', 3, 7);",
        StateChanges::plan);
    extensions.injectResolutionRule(
        (Function1<
                org.apache.spark.sql.SparkSession,
                org.apache.spark.sql.catalyst.rules.Rule<LogicalPlan>>)
            session -> new StatementText()); // first: sees the statement as parsed
    extensions.injectResolutionRule(
        (Function1<
                org.apache.spark.sql.SparkSession,
                org.apache.spark.sql.catalyst.rules.Rule<LogicalPlan>>)
            session -> new WidenKeys());
    extensions.injectResolutionRule(
        (Function1<
                org.apache.spark.sql.SparkSession,
                org.apache.spark.sql.catalyst.rules.Rule<LogicalPlan>>)
            session -> new RowLevelStateCommands());
    CallStatements.install(
        extensions,
        () ->
            Errors.analysis(
                "SAVEPOINT_SPARK_VERSION",
                "CALL (the catalog's procedures) needs Spark 4.0 or later; this is Spark "
                    + org.apache.spark.package$.MODULE$.SPARK_VERSION()
                    + ": call them from Python (spark_savepoint.take_savepoint(), last_edit(),"
                    + " ...), or run the tool with pyspark 4.0 or later."));
    return BoxedUnit.UNIT;
  }

  /** Registers table function {@code name}: {@code usage} and {@code example} for DESCRIBE. */
  private static void tableFunction(
      SparkSessionExtensions extensions,
      String name,
      String usage,
      String example,
      Function1<Seq<Expression>, LogicalPlan> builder) {
    extensions.injectTableFunction(
        new Tuple3<>(
            FunctionIdentifier.apply(name),
            new ExpressionInfo(
                SavepointExtensions.class.getName(),
                null,
                name,
                usage,
                "",
                "\n    Examples:\n      > " + example + "\n",
                "",
                "table_funcs",
                "0.1.0",
                "",
                "built-in"),
            builder));
  }

  /** SAVEPOINT_BAD_ARGUMENTS: argument {@code position} of {@code function} is not {@code wanted}. */
  static RuntimeException badArgument(
      String function, String usage, int position, String wanted, String got) {
    return Errors.analysis(
        "SAVEPOINT_BAD_ARGUMENTS",
        function
            + " takes ("
            + usage
            + "): argument "
            + position
            + " must be "
            + wanted
            + ", got "
            + got
            + ".");
  }

  /** The plan of generated SQL {@code sql} of table function {@code function}, unresolved. */
  static LogicalPlan parsed(SparkSession spark, String function, String sql) {
    try {
      return spark.sessionState().sqlParser().parsePlan(sql);
    } catch (org.apache.spark.sql.catalyst.parser.ParseException e) {
      throw new IllegalStateException("[SAVEPOINT_INTERNAL] " + function + " made SQL: " + sql, e);
    }
  }

  private static LogicalPlan metadata(Seq<Expression> args) {
    checkArity(METADATA, args, 1, 2, "path [, batchId]");
    SavepointCatalog catalog = catalogFor(METADATA, literal(args, 0));
    Identifier ident = Identifier.of(new String[0], MetadataTable.NAME);
    return relation(catalog, ident, args.size() > 1 ? literal(args, 1) : null);
  }

  private static LogicalPlan state(Seq<Expression> args) {
    checkArity(STATE, args, 3, 4, "path, uid, state [, batchId]");
    SavepointCatalog catalog = catalogFor(STATE, literal(args, 0));
    Identifier ident = Identifier.of(new String[] {literal(args, 1)}, literal(args, 2));
    return relation(catalog, ident, args.size() > 3 ? literal(args, 3) : null);
  }

  private static LogicalPlan list(Seq<Expression> args) {
    checkArity(LIST, args, 1, 1, "folder");
    SparkSession spark = SparkSession.active();
    String json = SavepointList.run(literal(args, 0), spark.sessionState().newHadoopConf());
    List<Row> rows = new ArrayList<>();
    try {
      for (JsonNode s : new ObjectMapper().readTree(json)) {
        Object[] values = new Object[LIST_SCHEMA.size()];
        for (int i = 0; i < values.length; i++) {
          StructField field = LIST_SCHEMA.fields()[i];
          JsonNode v = s.path(field.name());
          values[i] =
              v.isNull() // rows not counted
                  ? null
                  : switch (field.dataType().typeName()) {
                    case "long" -> v.asLong();
                    case "integer" -> v.asInt();
                    case "boolean" -> v.asBoolean();
                    default -> v.asText();
                  };
        }
        rows.add(RowFactory.create(values));
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("[SAVEPOINT_INTERNAL] " + e.getMessage(), e);
    }
    return LocalRelation.fromExternalRows(
        CollectionConverters.asScala(
                CollectionConverters.asJava(DataTypeUtils.toAttributes(LIST_SCHEMA)).stream()
                    .map(a -> (Attribute) a)
                    .toList())
            .toList(),
        CollectionConverters.asScala(rows).toList());
  }

  private static SavepointCatalog catalogFor(String function, String path) {
    if (path == null || path.isBlank()) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS",
          function
              + "('"
              + (path == null ? "" : path)
              + "', ...) names no checkpoint: its first argument is the folder of a streaming"
              + " query's checkpointLocation, e.g. "
              + function
              + "('/data/checkpoints/orders').");
    }
    SavepointCatalog catalog = new SavepointCatalog();
    catalog.initialize(function, new CaseInsensitiveStringMap(Map.of("path", path)));
    return catalog;
  }

  private static LogicalPlan relation(SavepointCatalog catalog, Identifier ident, String batch) {
    try {
      Table table = batch == null ? catalog.loadTable(ident) : catalog.loadTable(ident, batch);
      return DataSourceV2Relation.create(table, Option.empty(), Option.empty());
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw Errors.analysis("SAVEPOINT_NO_SUCH_STATE", e.getMessage());
    }
  }

  static void checkArity(String function, Seq<Expression> args, int min, int max, String usage) {
    if (args.size() < min || args.size() > max) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS",
          function + " takes (" + usage + "), got " + args.size() + " argument(s).");
    }
  }

  static String literal(Seq<Expression> args, int index) {
    Expression arg = args.apply(index);
    if (!arg.foldable()) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS",
          "argument " + (index + 1) + " must be a constant, got " + arg.sql() + ".");
    }
    Object value = arg.eval(null);
    return value == null ? null : value.toString();
  }
}
