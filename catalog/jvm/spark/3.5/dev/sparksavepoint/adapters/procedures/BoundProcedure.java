package dev.sparksavepoint.adapters.procedures;

import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.Scan;

/** A procedure ready to call (Spark 4.0's {@code BoundProcedure}). */
public interface BoundProcedure extends Procedure {
  /** Its parameters, in order. */
  ProcedureParameter[] parameters();

  /** Whether two calls with the same arguments give the same result. */
  boolean isDeterministic();

  /** Runs it on {@code input} (one value per parameter): its results. */
  Iterator<Scan> call(InternalRow input);
}
