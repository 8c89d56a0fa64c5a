package dev.sparksavepoint.adapters.state;

import org.apache.spark.SparkThrowable;

/** The refusal of what needs a newer Spark than 3.5. */
public final class Spark4Only {
  private Spark4Only() {}

  /** {@code what} needs Spark 4.0 or later: one {@code SAVEPOINT_SPARK_VERSION} line. */
  public static UnsupportedOperationException refuse(String what) {
    return new Refusal(
        "[SAVEPOINT_SPARK_VERSION] "
            + what
            + " needs Spark 4.0 or later; this is Spark "
            + org.apache.spark.package$.MODULE$.SPARK_VERSION()
            + ": run the tool with pyspark 4.0 or later (the checkpoint stays as it is).");
  }

  /** The refusal, with its error class as Spark's errors carry theirs. */
  private static final class Refusal extends UnsupportedOperationException
      implements SparkThrowable {
    Refusal(String message) {
      super(message);
    }

    @Override
    public String getErrorClass() {
      return "SAVEPOINT_SPARK_VERSION";
    }

    @Override
    public String getSqlState() {
      return "0A000";
    }
  }

  /** {@code cf} when it is the default column family (the only one a 3.5 store has). */
  static String defaultFamily(String cf) {
    if (!StateStore.DEFAULT_COL_FAMILY_NAME().equals(cf)) {
      throw refuse("a column family other than default (transformWithState state, " + cf + ")");
    }
    return cf;
  }
}
