package dev.sparksavepoint.adapters.procedures;

/** The default value of a parameter, as SQL (Spark 4.0's {@code DefaultValue}). */
public record DefaultValue(String getSql) {}
