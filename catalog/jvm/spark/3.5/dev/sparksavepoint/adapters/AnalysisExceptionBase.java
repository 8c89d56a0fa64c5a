package dev.sparksavepoint.adapters;

import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import scala.Option;
import scala.collection.immutable.Map;

/**
 * An AnalysisException of the tool's own error class and SQLSTATE, with its message as given:
 * Spark 3.5 and 4.0, whose constructors take no SQLSTATE (it is answered here).
 */
public abstract class AnalysisExceptionBase extends AnalysisException {
  private final String sqlState;

  protected AnalysisExceptionBase(
      String errorClass, String sqlState, Map<String, String> parameters, String message) {
    super(
        message,
        Option.empty(),
        Option.empty(),
        Option.empty(),
        Option.apply(errorClass),
        parameters,
        new QueryContext[0]);
    this.sqlState = sqlState;
  }

  @Override
  public String getSqlState() {
    return sqlState;
  }
}
