package dev.sparksavepoint.adapters.state;

import scala.collection.Seq;

/** A store in operator metadata v2 (stands in for 4.0's: Spark 3.5 writes none). */
public interface StateStoreMetadataV2 extends StateStoreMetadata {
  Seq<String> stateSchemaFilePaths();
}
