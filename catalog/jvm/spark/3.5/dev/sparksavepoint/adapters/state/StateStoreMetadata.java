package dev.sparksavepoint.adapters.state;

/** A store in operator metadata (stands in for 4.0's: Spark 3.5 writes none). */
public interface StateStoreMetadata {
  String storeName();

  int numPartitions();
}
