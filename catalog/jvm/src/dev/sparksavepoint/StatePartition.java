package dev.sparksavepoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.NoPrefixKeyStateEncoderSpec;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.StateStoreProviderId;
import org.apache.spark.sql.execution.streaming.state.StateStoreIterator;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import scala.Option;

/**
 * One partition of one state store, opened in a Spark task through Spark's own provider
 * ({@code StateStoreProvider.createAndInit} -> {@code getStore(N+1)}), edited with
 * {@code put}/{@code remove} and committed as version N+2. Never writes files itself.
 */
final class StatePartition implements AutoCloseable {
  private static final String CF = StateStore.DEFAULT_COL_FAMILY_NAME();

  private final StoreSpec spec;
  private final int partition;
  private final StateStoreProvider provider;
  private final StateStore store;
  private long upserted;
  private long removed;

  private StatePartition(StoreSpec spec, int partition, StateStoreProvider provider,
      StateStore store) {
    this.spec = spec;
    this.partition = partition;
    this.provider = provider;
    this.store = store;
  }

  /** Loads version N+1 of {@code spec}'s partition {@code partition} for writing. */
  static StatePartition open(WritePlan plan, StoreSpec spec, int partition) {
    StateStoreId id = new StateStoreId(plan.stateLocation(), spec.operatorId(), partition,
        spec.storeName());
    StateStoreProvider provider = StateStoreProvider.createAndInit(
        new StateStoreProviderId(id, plan.runId()), spec.keySchema(), spec.valueSchema(),
        new NoPrefixKeyStateEncoderSpec(spec.keySchema()), false, plan.storeConf(),
        plan.hadoopConf(), false, Option.empty());
    try {
      StateStore store = provider.getStore(plan.batchId() + 1,
          Option.apply(plan.uniqueId(spec, partition)), false, false);
      return new StatePartition(spec, partition, provider, store);
    } catch (RuntimeException e) {
      provider.close();
      throw e;
    }
  }

  /** Puts a key (its bytes as Spark encodes it) unless it already holds exactly this value. */
  void upsert(UnsafeRow key, UnsafeRow value) {
    UnsafeRow old = store.get(key, CF);
    if (old != null && old.equals(value)) return;
    store.put(key, value, CF);
    upserted++;
  }

  /** Removes every key not in {@code keep} (the diff that turns an upsert into a replace). */
  void removeAllBut(Set<UnsafeRow> keep) {
    List<UnsafeRow> doomed = new ArrayList<>();
    StateStoreIterator<UnsafeRowPair> it = store.iterator(CF);
    try {
      while (it.hasNext()) {
        UnsafeRow key = it.next().key();
        if (!keep.contains(key)) doomed.add(key.copy());
      }
    } finally {
      it.close();
    }
    for (UnsafeRow key : doomed) store.remove(key, CF);
    removed += doomed.size();
  }

  /** Commits version N+2 and reports it. */
  PartitionCommit commit() {
    store.commit();
    Option<String> id = store.getStateStoreCheckpointInfo().stateStoreCkptId();
    return new PartitionCommit(spec.operatorId(), spec.storeName(), partition,
        id.isDefined() ? id.get() : null, upserted, removed);
  }

  /** Drops uncommitted changes (no-op after commit). */
  void abort() {
    if (!store.hasCommitted()) store.abort();
  }

  @Override
  public void close() {
    provider.close();
  }
}
