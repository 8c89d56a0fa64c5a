package dev.sparksavepoint.adapters;

import org.apache.spark.sql.AnalysisException;
import scala.Option;
import scala.collection.immutable.Map;

/**
 * An AnalysisException of the tool's own error class and SQLSTATE, with its message as given:
 * Spark 4.1 and later.
 */
public abstract class AnalysisExceptionBase extends AnalysisException {
  protected AnalysisExceptionBase(
      String errorClass, String sqlState, Map<String, String> parameters, String message) {
    super(errorClass, sqlState, "<message>", parameters, Option.empty(), Option.apply(message));
  }
}
