package dev.sparksavepoint.adapters.state;

import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.execution.streaming.state.StateStoreProviderId;
import scala.collection.Seq;

/** Stands in for 4.0's reader of transformWithState's schema files (v3), which 3.5 lacks. */
public final class StateSchemaCompatibilityChecker {
  public StateSchemaCompatibilityChecker(
      StateStoreProviderId id, Configuration hadoopConf, Seq<?> schemaFiles) {
    throw Spark4Only.refuse("transformWithState state");
  }

  public Seq<StateStoreColFamilySchema> readSchemaFile() {
    throw Spark4Only.refuse("transformWithState state");
  }
}
