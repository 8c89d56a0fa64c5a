package dev.sparksavepoint.adapters.procedures;

import org.apache.spark.sql.types.DataType;

/** A parameter of a procedure (Spark 4.0's {@code ProcedureParameter}, input parameters only). */
public interface ProcedureParameter {
  /** Its name. */
  String name();

  /** Its type. */
  DataType dataType();

  /** Its default value, or null when it is required. */
  DefaultValue defaultValue();

  /** An input parameter {@code name} of type {@code dataType}. */
  static Builder in(String name, DataType dataType) {
    return new Builder(name, dataType, null);
  }

  /** Builds a parameter. */
  record Builder(String name, DataType dataType, DefaultValue defaultValue) {
    /** This parameter with the default value {@code sql}. */
    public Builder defaultValue(String sql) {
      return new Builder(name, dataType, new DefaultValue(sql));
    }

    /** The parameter. */
    public ProcedureParameter build() {
      return new Parameter(name, dataType, defaultValue);
    }
  }

  /** A built parameter. */
  record Parameter(String name, DataType dataType, DefaultValue defaultValue)
      implements ProcedureParameter {}
}
