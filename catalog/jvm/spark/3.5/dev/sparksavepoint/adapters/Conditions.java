package dev.sparksavepoint.adapters;

import org.apache.spark.SparkThrowable;

/** The error condition of Spark's errors: Spark 3.5 ({@code getErrorClass}). */
public final class Conditions {
  private Conditions() {}

  /** The condition (error class) of {@code error}, or null. */
  public static String of(SparkThrowable error) {
    return error.getErrorClass();
  }
}
