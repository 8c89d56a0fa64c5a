package dev.sparksavepoint.store;

import dev.sparksavepoint.adapters.Stores;
import dev.sparksavepoint.checkpoint.StoreSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreIterator;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;

/** The reads of a store partition as Spark's store holds it. */
record StoredReads(ReadStateStore store, StoreSpec spec) implements StateReads {
  @Override
  public UnsafeRow get(UnsafeRow key, String cf) {
    return store.get(key, cf);
  }

  @Override
  public List<UnsafeRow> values(UnsafeRow key, String cf) {
    List<UnsafeRow> values = new ArrayList<>();
    scala.collection.Iterator<UnsafeRow> it = store.valuesIterator(key, cf);
    while (it.hasNext()) values.add(it.next().copy());
    return values;
  }

  @Override
  public List<UnsafeRow> keys(String cf) {
    Set<UnsafeRow> keys = new LinkedHashSet<>();
    boolean multi = spec.families() != null && spec.families().isMultiValued(cf);
    StateStoreIterator<UnsafeRowPair> it =
        multi ? Stores.multiValued(store, cf) : store.iterator(cf);
    try {
      while (it.hasNext()) {
        UnsafeRow key = it.next().key();
        if (!keys.contains(key)) keys.add(key.copy());
      }
    } finally {
      it.close();
    }
    return new ArrayList<>(keys);
  }
}
