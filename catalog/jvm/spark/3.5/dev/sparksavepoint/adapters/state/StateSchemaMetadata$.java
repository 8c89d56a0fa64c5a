package dev.sparksavepoint.adapters.state;

import org.apache.hadoop.conf.Configuration;
import scala.collection.Seq;

/** Stands in for 4.0's companion object: the schema metadata of transformWithState state. */
public final class StateSchemaMetadata$ {
  public static final StateSchemaMetadata$ MODULE$ = new StateSchemaMetadata$();

  private StateSchemaMetadata$() {}

  public Object createStateSchemaMetadata(
      String stateLocation, Configuration hadoopConf, Seq<String> schemaFiles) {
    throw Spark4Only.refuse("transformWithState state");
  }
}
