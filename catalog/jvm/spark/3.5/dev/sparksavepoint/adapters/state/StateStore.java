package dev.sparksavepoint.adapters.state;

import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.StructType;

/** A version of a store to write: Spark 3.5's store, with 4.0's column family arguments. */
public final class StateStore extends ReadStateStore {
  private final org.apache.spark.sql.execution.streaming.state.StateStore spark;

  StateStore(org.apache.spark.sql.execution.streaming.state.StateStore spark) {
    super(spark);
    this.spark = spark;
  }

  /** The name of the one column family a store has before transformWithState. */
  public static String DEFAULT_COL_FAMILY_NAME() {
    return "default";
  }

  /** The partition whose folder keeps an operator's schema file. */
  public static int PARTITION_ID_TO_CHECK_SCHEMA() {
    return org.apache.spark.sql.execution.streaming.state.StateStore.PARTITION_ID_TO_CHECK_SCHEMA();
  }

  @Override
  public org.apache.spark.sql.execution.streaming.state.StateStore spark() {
    return spark;
  }

  public void put(UnsafeRow key, UnsafeRow value, String cf) {
    Spark4Only.defaultFamily(cf);
    spark.put(key, value);
  }

  public void remove(UnsafeRow key, String cf) {
    Spark4Only.defaultFamily(cf);
    spark.remove(key);
  }

  /** Appends to a multi-valued key (transformWithState list state): refused on 3.5. */
  public void merge(UnsafeRow key, UnsafeRow value, String cf) {
    throw Spark4Only.refuse("list state (" + cf + ")");
  }

  /** Registers a column family (transformWithState state): refused on 3.5. */
  public void createColFamilyIfAbsent(
      String name,
      StructType keySchema,
      StructType valueSchema,
      KeyStateEncoderSpec spec,
      boolean multiValued,
      boolean internal) {
    throw Spark4Only.refuse("a column family (transformWithState state, " + name + ")");
  }

  public long commit() {
    return spark.commit();
  }

  @Override
  public void abort() {
    spark.abort();
  }

  public boolean hasCommitted() {
    return spark.hasCommitted();
  }

  /** What the commit wrote: no state checkpoint id on 3.5. */
  public StateStoreCheckpointInfo getStateStoreCheckpointInfo() {
    return StateStoreCheckpointInfo.NONE;
  }
}
