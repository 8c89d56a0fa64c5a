package dev.sparksavepoint.adapters.state;

/** An operator's metadata file (stands in for 4.0's: Spark 3.5 writes none). */
public interface OperatorStateMetadata {
  int version();

  OperatorInfo operatorInfo();

  /** Who wrote it. */
  interface OperatorInfo {
    String operatorName();
  }
}
