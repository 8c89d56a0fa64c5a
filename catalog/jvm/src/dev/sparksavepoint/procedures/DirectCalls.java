package dev.sparksavepoint.procedures;

import dev.sparksavepoint.errors.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.Dataset;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;

/**
 * A procedure called without SQL's {@code CALL}, which Spark 3.5 does not have: Python calls it
 * through here, with the same arguments (SQL literals by parameter name) and the same rows as
 * {@code CALL <catalog>.system.<name>(...)} gives on Spark 4.0 and later.
 *
 * <pre>
 *   DirectCalls.call(spark, "savepoint", "take_savepoint", Map.of("target", "'/sp/1'"))
 * </pre>
 */
public final class DirectCalls {
  private DirectCalls() {}

  /**
   * Runs procedure {@code name} of catalog {@code catalog} with {@code arguments} (parameter
   * name to a SQL literal; a parameter left out takes its default): its rows.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_BAD_ARGUMENTS for an unknown
   *     parameter or a missing required one; the procedure's own errors
   */
  public static Dataset<Row> call(
      SparkSession spark, String catalog, String name, Map<String, String> arguments) {
    CatalogPlugin plugin = spark.sessionState().catalogManager().catalog(catalog);
    UnboundProcedure unbound =
        plugin instanceof ProcedureCatalog procedures
            ? procedures.loadProcedure(Identifier.of(new String[] {Procedures.NAMESPACE}, name))
            : null;
    if (!(unbound instanceof ActionProcedure procedure)) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS", "The catalog " + catalog + " is not a savepoint catalog.");
    }
    InternalRow input = input(spark, procedure, arguments);
    List<Row> rows = new ArrayList<>();
    for (Object[] values : procedure.callWith(spark, input)) {
      rows.add(RowFactory.create(values));
    }
    return spark.createDataFrame(rows, procedure.outputType());
  }

  /** The procedure's input row: each argument, or the parameter's default, cast to its type. */
  private static InternalRow input(
      SparkSession spark, ActionProcedure procedure, Map<String, String> arguments) {
    List<String> columns = new ArrayList<>();
    for (String given : arguments.keySet()) {
      boolean known = false;
      for (ProcedureParameter p : procedure.parameters()) known |= p.name().equals(given);
      if (!known) throw badArguments(procedure, "has no parameter " + given);
    }
    for (ProcedureParameter p : procedure.parameters()) {
      String sql = arguments.get(p.name());
      if (sql == null && p.defaultValue() != null) sql = p.defaultValue().getSql();
      if (sql == null) throw badArguments(procedure, "needs the argument " + p.name());
      columns.add("CAST(" + sql + " AS " + p.dataType().sql() + ")");
    }
    if (columns.isEmpty()) return InternalRow.empty();
    Dataset<Row> values = spark.sql("SELECT " + String.join(", ", columns));
    return values.queryExecution().executedPlan().executeCollect()[0].copy();
  }

  private static RuntimeException badArguments(ActionProcedure procedure, String what) {
    return Errors.analysis(
        "SAVEPOINT_BAD_ARGUMENTS", "The procedure " + procedure.name() + " " + what + ".");
  }
}
