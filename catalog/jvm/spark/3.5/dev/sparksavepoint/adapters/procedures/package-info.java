/**
 * The stored-procedure interfaces of Spark 4.0's DSv2 API ({@code
 * org.apache.spark.sql.connector.catalog.procedures} and {@code ProcedureCatalog}), for Spark
 * 3.5, which has none: the shared procedures compile against these in their place
 * ({@code relocations.txt}). Spark 3.5 never calls them (its SQL has no CALL); Python calls the
 * procedures through {@code dev.sparksavepoint.procedures.DirectCalls}.
 */
package dev.sparksavepoint.adapters.procedures;
