package dev.sparksavepoint.adapters.procedures;

import org.apache.spark.sql.connector.catalog.Identifier;

/** A catalog of procedures (Spark 4.0's {@code ProcedureCatalog}). */
public interface ProcedureCatalog {
  /** The procedure {@code ident}. */
  UnboundProcedure loadProcedure(Identifier ident);
}
