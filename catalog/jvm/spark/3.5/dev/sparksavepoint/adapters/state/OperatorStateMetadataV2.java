package dev.sparksavepoint.adapters.state;

/** Operator metadata v2 (stands in for 4.0's: Spark 3.5 writes none). */
public interface OperatorStateMetadataV2 extends OperatorStateMetadata {
  StateStoreMetadataV2[] stateStoreInfo();

  String operatorPropertiesJson();
}
