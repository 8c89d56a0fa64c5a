package dev.sparksavepoint.adapters.state;

/** The schemas of a store's column families (transformWithState; stands in for 4.0's). */
public interface StateSchemaProvider {}
