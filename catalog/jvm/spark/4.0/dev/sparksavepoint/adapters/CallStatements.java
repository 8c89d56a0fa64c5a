package dev.sparksavepoint.adapters;

import java.util.function.Supplier;
import org.apache.spark.sql.SparkSessionExtensions;

/** SQL's {@code CALL} statement: Spark 4.0 and later parse it (stored procedures). */
public final class CallStatements {
  private CallStatements() {}

  /** Nothing to add: this Spark's own parser has CALL ({@code refusal} is never raised). */
  public static void install(
      SparkSessionExtensions extensions, Supplier<RuntimeException> refusal) {}
}
