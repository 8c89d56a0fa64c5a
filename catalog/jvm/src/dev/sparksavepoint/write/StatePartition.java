package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.commit.CrashPoint;
import dev.sparksavepoint.commit.PartitionCommit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.execution.streaming.state.StateStoreIterator;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import scala.Option;

/**
 * One partition of one state store, opened in a Spark task through Spark's own provider
 * ({@code StateStoreProvider.createAndInit} -> {@code getStore(N+1)}), edited with
 * {@code put}/{@code remove} and committed as version N+2. Never writes files itself.
 */
final class StatePartition implements AutoCloseable {
  private final StoreSpec spec;
  private final int partition;
  private final StateStoreProvider provider;
  /** The store the partition reads; for writing, also the store it changes. */
  private final ReadStateStore reads;
  /** The store it changes; null in a dry run, which records the changes instead. */
  private final StateStore store;
  private final DryRun dryRun;
  /** Where a statement of an edit transaction records its changes; else null. */
  private final StagedEdits staged;
  private long upserted;
  private long removed;

  private StatePartition(StoreSpec spec, int partition, StateStoreProvider provider,
      ReadStateStore reads, StateStore store, DryRun dryRun, StagedEdits staged) {
    this.spec = spec;
    this.partition = partition;
    this.provider = provider;
    this.reads = reads;
    this.store = store;
    this.dryRun = dryRun;
    this.staged = staged;
  }

  /**
   * Version N+1 of {@code spec}'s partition {@code partition}, read-only, for a dry run or a
   * statement of an edit transaction: the changes an edit makes are counted for {@code family}
   * (the edited one; others are Spark's bookkeeping, e.g. list counters) and reported by
   * {@link #endReadOnly}; a transaction's statement also records all of them in the
   * statement's staging folder ({@link StagedEdits}). Nothing is written to the state.
   */
  static StatePartition openDryRun(WritePlan plan, StoreSpec spec, int partition,
      String family) {
    StateStoreProvider provider = StoreProviders.open(plan.stateLocation(), plan.runId(), plan.storeConf(),
        plan.hadoopConf(), spec, partition);
    try {
      ReadStateStore reads = provider.getReadStore(CheckpointLog.stateVersion(plan.batchId()),
          Option.apply(plan.uniqueId(spec, partition)));
      if (spec.families() != null) spec.families().register((StateStore) reads);
      StagedEdits staged = plan.stagingFolder() == null ? null
          : StagedEdits.recorder(plan.stagingFolder(), spec, partition, plan.hadoopConf());
      return new StatePartition(spec, partition, provider, reads, null,
          new DryRun(spec, family), staged);
    } catch (RuntimeException e) {
      provider.close();
      throw e;
    }
  }

  /** Loads version N+1 of {@code spec}'s partition {@code partition} for writing. */
  static StatePartition open(WritePlan plan, StoreSpec spec, int partition) {
    return open(plan.stateLocation(), plan.runId(), plan.storeConf(), plan.hadoopConf(), spec,
        partition, CheckpointLog.stateVersion(plan.batchId()), plan.uniqueId(spec, partition),
        false);
  }

  /**
   * An empty store for a full image of {@code spec}'s partition {@code partition}, under the
   * staging folder of the plan's full-image replace ({@link WritePlan.Images}): RocksDB starts
   * empty at version N+1 and commits N+2 as a {@code .zip}; an HDFS-backed store starts at
   * version 0 and commits version 1, a delta of puts only ({@code commit.StagedImages} moves it
   * into place as the snapshot of version N+2).
   */
  static StatePartition openImage(WritePlan plan, StoreSpec spec, int partition) {
    WritePlan.Images images = plan.images();
    long version = images.hdfs() ? 0 : CheckpointLog.stateVersion(plan.batchId());
    return open(images.stateLocation(), plan.runId(), images.conf(), plan.hadoopConf(), spec,
        partition, version, null, !images.hdfs());
  }

  /**
   * Loads version {@code version} (v2 checkpoint id {@code uniqueId}, or null) of
   * {@code spec}'s partition {@code partition} under the state folder {@code stateLocation}
   * for writing version+1; {@code loadEmpty}: start from no state (RocksDB only).
   */
  static StatePartition open(String stateLocation, UUID runId, StateStoreConf conf,
      Configuration hadoopConf, StoreSpec spec, int partition, long version, String uniqueId,
      boolean loadEmpty) {
    StateStoreProvider provider = StoreProviders.open(stateLocation, runId, conf, hadoopConf, spec,
        partition);
    try {
      StateStore store = provider.getStore(version, Option.apply(uniqueId), false, loadEmpty);
      if (spec.families() != null) spec.families().register(store);
      return new StatePartition(spec, partition, provider, store, store, null, null);
    } catch (RuntimeException e) {
      provider.close();
      throw e;
    }
  }

  /**
   * Puts a key (its bytes as Spark encodes it) into column family {@code cf} unless it already
   * holds exactly this value.
   */
  void upsert(UnsafeRow key, UnsafeRow value, String cf) {
    UnsafeRow old = reads.get(key, cf);
    if (old != null && old.equals(value)) return;
    put(key, value, cf);
  }

  /** Removes every key of {@code cf} not in {@code keep} (what turns an upsert into a replace). */
  void removeAllBut(Set<UnsafeRow> keep, String cf) {
    for (UnsafeRow key : keys(cf)) {
      if (!keep.contains(key)) remove(key, cf);
    }
  }

  /** The stored value of {@code key} in column family {@code cf}, or null. */
  UnsafeRow get(UnsafeRow key, String cf) {
    return reads.get(key, cf);
  }

  /** The values of a multi-valued (list) column family under {@code key}, copied. */
  List<UnsafeRow> values(UnsafeRow key, String cf) {
    List<UnsafeRow> values = new ArrayList<>();
    scala.collection.Iterator<UnsafeRow> it = reads.valuesIterator(key, cf);
    while (it.hasNext()) values.add(it.next().copy());
    return values;
  }

  /** Every key of column family {@code cf}, copied, each once (also for list families). */
  List<UnsafeRow> keys(String cf) {
    Set<UnsafeRow> keys = new java.util.LinkedHashSet<>();
    boolean multi = spec.families() != null && spec.families().isMultiValued(cf);
    StateStoreIterator<UnsafeRowPair> it = multi ? reads.iteratorWithMultiValues(cf)
        : reads.iterator(cf);
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

  void put(UnsafeRow key, UnsafeRow value, String cf) {
    if (dryRun != null) {
      dryRun.set(reads, key, value, cf);
      if (staged != null) staged.put(key, value, cf);
    } else {
      store.put(key, value, cf);
    }
    upserted++;
  }

  /** Appends one value to a list column family ({@code merge}, as ListState.appendValue). */
  void merge(UnsafeRow key, UnsafeRow value, String cf) {
    if (dryRun != null) {
      dryRun.append(reads, key, List.of(value), cf);
      if (staged != null) staged.append(key, List.of(value), cf);
    } else {
      store.merge(key, value, cf);
    }
    upserted++;
  }

  /** Appends values to a list column family ({@code merge}, as ListState.appendList). */
  void mergeList(UnsafeRow key, List<UnsafeRow> values, String cf) {
    if (dryRun != null) {
      dryRun.append(reads, key, values, cf);
      if (staged != null) staged.append(key, values, cf);
    } else {
      store.mergeList(key, values.toArray(new UnsafeRow[0]), cf);
    }
    upserted += values.size();
  }

  /** Replaces the values of a list column family under {@code key} (as ListState.put). */
  void putList(UnsafeRow key, List<UnsafeRow> values, String cf) {
    if (dryRun != null) {
      dryRun.replaceList(reads, key, values, cf);
      if (staged != null) staged.putList(key, values, cf);
    } else {
      store.putList(key, values.toArray(new UnsafeRow[0]), cf);
    }
    upserted += values.size();
  }

  void remove(UnsafeRow key, String cf) {
    if (dryRun != null) {
      dryRun.remove(reads, key, cf);
      if (staged != null) staged.remove(key, cf);
    } else {
      store.remove(key, cf);
    }
    removed++;
  }

  /**
   * Records {@code keys} as the key count of the version being written, for a RocksDB full
   * image written without counting ({@link RocksDBKeyCount}); a no-op elsewhere.
   */
  void recordImageKeys(long keys) {
    if (provider instanceof RocksDBStateStoreProvider && RocksDBKeyCount.settable()) {
      RocksDBKeyCount.set(provider, keys);
    }
  }

  /**
   * For a full image of an HDFS-backed store: from here on the store keeps none of the entries
   * put and only streams them into its delta file ({@link HdfsImageMap}). True when it does;
   * such a store cannot look keys up. False for a RocksDB store (its entries are off the heap).
   */
  boolean streamImage() {
    return store != null && HdfsImageMap.install(store);
  }

  /**
   * Version 1 of {@code spec}'s partition {@code partition} as a full-image replace staged it
   * (an HDFS-backed image, committed, not yet in place), read-only.
   */
  static StatePartition openStagedImage(WritePlan plan, StoreSpec spec, int partition) {
    WritePlan.Images images = plan.images();
    StateStoreProvider provider = StoreProviders.open(images.stateLocation(), plan.runId(),
        images.conf(), plan.hadoopConf(), spec, partition);
    try {
      ReadStateStore reads = provider.getReadStore(1, Option.empty());
      return new StatePartition(spec, partition, provider, reads, null, null, null);
    } catch (RuntimeException e) {
      provider.close();
      throw e;
    }
  }

  /** Calls {@code visit} with every key of {@code cf} (a reused row: copy what you keep). */
  void forEachKey(String cf, java.util.function.Consumer<UnsafeRow> visit) {
    StateStoreIterator<UnsafeRowPair> it = reads.iterator(cf);
    try {
      while (it.hasNext()) visit.accept(it.next().key());
    } finally {
      it.close();
    }
  }

  /** Commits version N+2 and reports it. */
  PartitionCommit commit() {
    store.commit();
    CrashPoint.reach("state");
    Option<String> id = store.getStateStoreCheckpointInfo().stateStoreCkptId();
    return new PartitionCommit(spec.operatorId(), spec.storeName(), partition,
        id.isDefined() ? id.get() : null, upserted, removed);
  }

  /**
   * Ends a partition opened by {@link #openDryRun}: what it would change, with the file its
   * changes are staged in (or null).
   */
  PlannedChanges endReadOnly() {
    String file = staged == null ? null : staged.close();
    reads.abort();
    return dryRun.changes(partition, file);
  }

  /** Drops uncommitted changes (no-op after commit), and a staged recording. */
  void abort() {
    if (staged != null) staged.discard();
    if (store == null) reads.abort();
    else if (!store.hasCommitted()) store.abort();
  }

  @Override
  public void close() {
    provider.close();
  }
}
