package dev.sparksavepoint.procedures;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.errors.Errors;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.Dataset;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A procedure called without SQL's {@code CALL}: the Python verbs of a classic session call it
 * through here (Spark 3.5 has no {@code CALL}; on 4.0 and later a statement would cost a parse,
 * an analysis and a collect, about as much as a small action), with the same parameters and the
 * same rows as {@code CALL <catalog>.system.<name>(...)} gives.
 *
 * <pre>
 *   DirectCalls.json(spark, "savepoint", "take_savepoint", "{\"target\": \"/sp/1\"}")
 *   // {"columns": ["path", "batch_id", ...], "rows": [["/sp/1", 41, ...]]}
 * </pre>
 */
public final class DirectCalls {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A parameter's default (a SQL literal) by procedure, parameter and literal: cast once. */
  private static final Map<String, Object> DEFAULTS = new ConcurrentHashMap<>();

  /** A default that is NULL, as {@link #DEFAULTS} keeps it (a map holds no null). */
  private static final Object NULL = new Object();

  private DirectCalls() {}

  /**
   * Runs procedure {@code name} of catalog {@code catalog} with {@code arguments}, a JSON object
   * of typed values by parameter name (strings, integers, booleans, null; a parameter left out
   * takes its default): its rows as JSON, {@code {"columns": [...], "rows": [[...], ...]}}.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_BAD_ARGUMENTS for an unknown
   *     parameter, a missing required one or a value of another type; the procedure's own errors
   */
  public static String json(SparkSession spark, String catalog, String name, String arguments) {
    // as a statement runs: catalogs, actions and Spark's readers take the active session's conf
    scala.Option<org.apache.spark.sql.SparkSession> before =
        org.apache.spark.sql.SparkSession.getActiveSession();
    org.apache.spark.sql.SparkSession.setActiveSession(spark);
    try {
      return run(spark, catalog, name, arguments);
    } finally {
      if (before.isDefined()) org.apache.spark.sql.SparkSession.setActiveSession(before.get());
      else org.apache.spark.sql.SparkSession.clearActiveSession();
    }
  }

  private static String run(SparkSession spark, String catalog, String name, String arguments) {
    ActionProcedure procedure = procedure(spark, catalog, name);
    JsonNode given;
    try {
      given = JSON.readTree(arguments);
    } catch (JsonProcessingException e) {
      throw badArguments(procedure, "was given arguments that are no JSON object");
    }
    InternalRow input = typedInput(spark, procedure, given);
    ObjectNode out = JSON.createObjectNode();
    ArrayNode columns = out.putArray("columns");
    for (StructField f : procedure.outputType().fields()) columns.add(f.name());
    ArrayNode rows = out.putArray("rows");
    for (Object[] values : procedure.callWith(spark, input)) rows.add(JSON.valueToTree(values));
    return out.toString();
  }

  private static ActionProcedure procedure(SparkSession spark, String catalog, String name) {
    CatalogPlugin plugin = spark.sessionState().catalogManager().catalog(catalog);
    UnboundProcedure unbound =
        plugin instanceof ProcedureCatalog procedures
            ? procedures.loadProcedure(Identifier.of(new String[] {Procedures.NAMESPACE}, name))
            : null;
    if (!(unbound instanceof ActionProcedure procedure)) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS", "The catalog " + catalog + " is not a savepoint catalog.");
    }
    return procedure;
  }

  /**
   * The procedure's input row from typed JSON values: each argument as its parameter's type
   * (no conversion between types), or the parameter's default.
   */
  private static InternalRow typedInput(
      SparkSession spark, ActionProcedure procedure, JsonNode given) {
    if (!given.isObject()) {
      throw badArguments(procedure, "was given arguments that are no JSON object");
    }
    for (Iterator<String> names = given.fieldNames(); names.hasNext(); ) {
      String n = names.next();
      boolean known = false;
      for (ProcedureParameter p : procedure.parameters()) known |= p.name().equals(n);
      if (!known) throw badArguments(procedure, "has no parameter " + n);
    }
    ProcedureParameter[] parameters = procedure.parameters();
    Object[] values = new Object[parameters.length];
    for (int i = 0; i < parameters.length; i++) {
      ProcedureParameter p = parameters[i];
      JsonNode value = given.get(p.name());
      values[i] = value != null ? typed(procedure, p, value) : defaultValue(spark, procedure, p);
    }
    return InternalRow.fromSeq(
        CollectionConverters.asScala(java.util.Arrays.asList(values)).toSeq());
  }

  private static Object typed(ActionProcedure procedure, ProcedureParameter p, JsonNode value) {
    DataType type = p.dataType();
    if (value.isNull()) return null;
    if (type.equals(DataTypes.StringType) && value.isTextual()) {
      return UTF8String.fromString(value.asText());
    }
    if (type.equals(DataTypes.LongType) && value.isIntegralNumber() && value.canConvertToLong()) {
      return value.asLong();
    }
    if (type.equals(DataTypes.IntegerType) && value.isIntegralNumber() && value.canConvertToInt()) {
      return value.asInt();
    }
    if (type.equals(DataTypes.BooleanType) && value.isBoolean()) return value.asBoolean();
    throw badArguments(
        procedure, "takes a " + type.sql() + " as " + p.name() + ", not " + value.toString());
  }

  /** A parameter's default, cast to its type once per JVM; required ones have none. */
  private static Object defaultValue(
      SparkSession spark, ActionProcedure procedure, ProcedureParameter p) {
    if (p.defaultValue() == null) throw badArguments(procedure, "needs the argument " + p.name());
    String sql = "CAST(" + p.defaultValue().getSql() + " AS " + p.dataType().sql() + ")";
    Object value =
        DEFAULTS.computeIfAbsent(
            procedure.name() + "." + p.name() + "=" + sql,
            key -> {
              Dataset<Row> select = spark.sql("SELECT " + sql);
              InternalRow row = select.queryExecution().executedPlan().executeCollect()[0];
              return row.isNullAt(0) ? NULL : row.copy().get(0, p.dataType());
            });
    return value == NULL ? null : value;
  }

  private static RuntimeException badArguments(ActionProcedure procedure, String what) {
    return Errors.analysis(
        "SAVEPOINT_BAD_ARGUMENTS", "The procedure " + procedure.name() + " " + what + ".");
  }
}
