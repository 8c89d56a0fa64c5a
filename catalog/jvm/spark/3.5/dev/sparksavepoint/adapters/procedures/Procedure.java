package dev.sparksavepoint.adapters.procedures;

/** A procedure (Spark 4.0's {@code Procedure}). */
public interface Procedure {
  /** Its name. */
  String name();

  /** What it does. */
  String description();
}
