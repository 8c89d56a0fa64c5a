package dev.sparksavepoint.adapters.state;

import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import scala.collection.Iterator;

/** A version of a store to read: Spark 3.5's read store, with 4.0's column family arguments. */
public class ReadStateStore {
  private final org.apache.spark.sql.execution.streaming.state.ReadStateStore spark;

  ReadStateStore(org.apache.spark.sql.execution.streaming.state.ReadStateStore spark) {
    this.spark = spark;
  }

  /** Spark's own store. */
  public org.apache.spark.sql.execution.streaming.state.ReadStateStore spark() {
    return spark;
  }

  public StateStoreId id() {
    return spark.id();
  }

  public long version() {
    return spark.version();
  }

  /** The value of {@code key}, or null. */
  public UnsafeRow get(UnsafeRow key, String cf) {
    Spark4Only.defaultFamily(cf);
    return spark.get(key);
  }

  /** Every (key, value) of {@code cf}. */
  public StateStoreIterator<UnsafeRowPair> iterator(String cf) {
    Spark4Only.defaultFamily(cf);
    return new StateStoreIterator<>(spark.iterator());
  }

  /** The values of a multi-valued key (transformWithState list state): refused on 3.5. */
  public Iterator<UnsafeRow> valuesIterator(UnsafeRow key, String cf) {
    throw Spark4Only.refuse("list state (" + cf + ")");
  }

  public void abort() {
    spark.abort();
  }
}
