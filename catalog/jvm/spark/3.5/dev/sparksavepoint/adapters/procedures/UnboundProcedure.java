package dev.sparksavepoint.adapters.procedures;

import org.apache.spark.sql.types.StructType;

/** A procedure before its arguments' types are known (Spark 4.0's {@code UnboundProcedure}). */
public interface UnboundProcedure extends Procedure {
  /** The procedure for arguments of {@code inputType}. */
  BoundProcedure bind(StructType inputType);
}
