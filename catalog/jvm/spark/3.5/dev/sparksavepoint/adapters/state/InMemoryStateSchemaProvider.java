package dev.sparksavepoint.adapters.state;

/** Stands in for 4.0's: never made on 3.5 (its {@code StateSchemaMetadata} refuses first). */
public final class InMemoryStateSchemaProvider implements StateSchemaProvider {
  public InMemoryStateSchemaProvider(Object metadata) {
    throw Spark4Only.refuse("transformWithState state");
  }
}
