package dev.sparksavepoint.store;

import dev.sparksavepoint.adapters.SparkState;
import dev.sparksavepoint.adapters.Stores;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.commit.CrashPoint;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.read.HdfsFiles;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
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
public final class StatePartition implements AutoCloseable, StagedEdits.Target {
  private final StoreSpec spec;
  private final int partition;
  private final StateStoreProvider provider;

  /** The store the partition reads; for writing, also the store it changes. */
  private final ReadStateStore reads;

  /**
   * What edits read: {@link #reads}, with the staged changes of a transaction's earlier
   * statements over it for a later statement.
   */
  private final StateReads view;

  /** The store it commits; null when the partition only reads and records. */
  private final StateStore store;

  /** Where its changes go: {@link #store}, or a recorder. */
  private final PartitionSink sink;

  private long upserted;
  private long removed;

  /** A walked partition's map ({@link #openWalked}), or null. */
  private HdfsWalkMap walkMap;

  /** A walked partition's stored entries, closed with it, or null. */
  private HdfsFiles.Entries walkedEntries;

  private StatePartition(
      StoreSpec spec,
      int partition,
      StateStoreProvider provider,
      ReadStateStore reads,
      StateStore store,
      PartitionSink sink,
      StateReads view) {
    this.spec = spec;
    this.partition = partition;
    this.provider = provider;
    this.reads = reads;
    this.view = view;
    this.store = store;
    this.sink = sink;
  }

  /**
   * Version N+1 of {@code spec}'s partition {@code partition}, read-only, for a dry run or a
   * statement of an edit transaction: the changes an edit makes are counted for {@code family}
   * (the edited one; others are Spark's bookkeeping, e.g. list counters) and reported by
   * {@link #endReadOnly}; a transaction's statement also records all of them in its staging
   * folder {@code stagingFolder} ({@link StagedEdits}; null for a dry run), and reads the state
   * with the changes its transaction's earlier statements staged ({@code earlier}) over it.
   * Nothing is written to the state.
   */
  public static StatePartition openReadOnly(
      StoreBatch batch,
      StoreSpec spec,
      int partition,
      String family,
      String stagingFolder,
      StagedFiles earlier) {
    return opened(
        batch,
        spec,
        partition,
        provider -> {
          ReadStateStore reads =
              provider.getReadStore(
                  CheckpointLog.stateVersion(batch.batchId()),
                  Option.apply(batch.uniqueId(spec, partition)));
          if (spec.families() != null) spec.families().register((StateStore) reads);
          StateReads view =
              StagedState.over(
                  new StoredReads(reads, spec), earlier.of(spec, partition), batch.hadoopConf());
          DryRun counts = new DryRun(spec, family, reads, view);
          PartitionSink sink =
              stagingFolder == null
                  ? counts
                  : StagedEdits.recorder(
                      stagingFolder, spec, partition, batch.hadoopConf(), counts);
          return new StatePartition(spec, partition, provider, reads, null, sink, view);
        });
  }

  /** Loads version N+1 of {@code spec}'s partition {@code partition} for writing. */
  public static StatePartition open(StoreBatch batch, StoreSpec spec, int partition) {
    return opened(batch, spec, partition, provider -> loaded(batch, spec, partition, provider));
  }

  /** Version N+1 of {@code spec}'s partition of {@code batch}, loaded whole by {@code provider}. */
  private static StatePartition loaded(
      StoreBatch batch, StoreSpec spec, int partition, StateStoreProvider provider) {
    String uniqueId = batch.uniqueId(spec, partition);
    long version = CheckpointLog.stateVersion(batch.batchId());
    return writing(
        spec,
        partition,
        provider,
        Stores.writable(provider, version, uniqueId, false, batch.hadoopConf()));
  }

  /**
   * Version N+1 of {@code spec}'s partition {@code partition} for writing, knowing only the
   * entries of {@code keys} (it refuses to look up any other) where it is HDFS-backed: read from
   * the partition's files for just those keys ({@link HdfsFiles}, nothing read for no keys)
   * instead of loading every entry ({@link HdfsPartialMap}). Any other store, or files that
   * cannot be read so, is loaded whole as {@link #open} loads it.
   */
  public static StatePartition openFor(
      StoreBatch batch, StoreSpec spec, int partition, Collection<UnsafeRow> keys) {
    long version = CheckpointLog.stateVersion(batch.batchId());
    return opened(
        batch,
        spec,
        partition,
        provider -> {
          StateStore store = null;
          if (batch.uniqueId(spec, partition) == null) {
            Map<UnsafeRow, UnsafeRow> found =
                HdfsFiles.values(
                    provider,
                    version,
                    keys,
                    spec.keySchema(),
                    spec.valueSchema(),
                    batch.storeConf(),
                    batch.hadoopConf());
            if (found != null) store = HdfsPartialMap.store(provider, version, keys, found);
          }
          return store == null
              ? loaded(batch, spec, partition, provider)
              : writing(spec, partition, provider, store);
        });
  }

  /**
   * An HDFS-backed partition opened for a replace that walks its stored entries: the partition
   * writes version N+1 over a map that knows only the entry the walk is at ({@link HdfsWalkMap}),
   * and {@code stored} streams version N's entries from the partition's files
   * ({@link HdfsFiles#entries}). Closing the partition closes {@code stored} too.
   */
  public record Walked(StatePartition partition, HdfsWalkMap map, HdfsFiles.Entries stored) {}

  /**
   * Version N+1 of {@code spec}'s partition {@code partition} for a replace that walks its
   * stored entries ({@link Walked}); null when it is not HDFS-backed or its files cannot be
   * streamed (the caller {@link #open}s it).
   */
  public static Walked openWalked(StoreBatch batch, StoreSpec spec, int partition) {
    if (batch.uniqueId(spec, partition) != null) return null;
    StatePartition walking =
        opened(batch, spec, partition, provider -> walking(batch, spec, partition, provider));
    return walking == null ? null : new Walked(walking, walking.walkMap, walking.walkedEntries);
  }

  /**
   * {@code provider}'s partition writing version N+1 over an {@link HdfsWalkMap}, with version
   * N's entries streamed; null (the provider closed) when it cannot be opened so.
   */
  private static StatePartition walking(
      StoreBatch batch, StoreSpec spec, int partition, StateStoreProvider provider) {
    long version = CheckpointLog.stateVersion(batch.batchId());
    HdfsFiles.Entries stored =
        HdfsFiles.entries(
            provider,
            version,
            spec.keySchema(),
            spec.valueSchema(),
            batch.storeConf(),
            batch.hadoopConf(),
            null);
    HdfsWalkMap map = new HdfsWalkMap();
    StateStore store = stored == null ? null : PartHdfsMap.storeOver(provider, version, map);
    if (store == null) {
      if (stored != null) stored.close();
      provider.close();
      return null;
    }
    StatePartition walking = writing(spec, partition, provider, store);
    walking.walkMap = map;
    walking.walkedEntries = stored;
    return walking;
  }

  /**
   * Loads version {@code version} (v2 checkpoint id {@code uniqueId}, or null) of
   * {@code spec}'s partition {@code partition} under the state folder {@code stateLocation}
   * for writing version+1; {@code loadEmpty}: start from no state (RocksDB only).
   */
  public static StatePartition open(
      String stateLocation,
      UUID runId,
      StateStoreConf conf,
      Configuration hadoopConf,
      StoreSpec spec,
      int partition,
      long version,
      String uniqueId,
      boolean loadEmpty) {
    return opened(
        stateLocation,
        runId,
        conf,
        hadoopConf,
        spec,
        partition,
        provider ->
            writing(
                spec,
                partition,
                provider,
                Stores.writable(provider, version, uniqueId, loadEmpty, hadoopConf)));
  }

  /** A partition that writes {@code store}, opened by {@code provider}. */
  private static StatePartition writing(
      StoreSpec spec, int partition, StateStoreProvider provider, StateStore store) {
    if (spec.families() != null) spec.families().register(store);
    return new StatePartition(
        spec,
        partition,
        provider,
        store,
        store,
        PartitionSink.into(store),
        new StoredReads(store, spec));
  }

  /**
   * Version {@code version} of {@code spec}'s partition {@code partition} under the state folder
   * {@code stateLocation}, only to read (e.g. a staged image): it cannot change.
   */
  public static StatePartition openToRead(
      String stateLocation,
      UUID runId,
      StateStoreConf conf,
      Configuration hadoopConf,
      StoreSpec spec,
      int partition,
      long version) {
    return opened(
        stateLocation,
        runId,
        conf,
        hadoopConf,
        spec,
        partition,
        provider -> {
          ReadStateStore reads = provider.getReadStore(version, Option.empty());
          return new StatePartition(
              spec, partition, provider, reads, null, null, new StoredReads(reads, spec));
        });
  }

  /** {@code open} applied to a new provider of {@code spec}'s partition of {@code batch}. */
  private static StatePartition opened(
      StoreBatch batch,
      StoreSpec spec,
      int partition,
      Function<StateStoreProvider, StatePartition> open) {
    return opened(
        batch.stateLocation(),
        batch.runId(),
        batch.storeConf(),
        batch.hadoopConf(),
        spec,
        partition,
        open);
  }

  /**
   * {@code open} applied to a new provider of {@code spec}'s partition {@code partition}; the
   * provider is closed again when {@code open} fails.
   */
  private static StatePartition opened(
      String stateLocation,
      UUID runId,
      StateStoreConf conf,
      Configuration hadoopConf,
      StoreSpec spec,
      int partition,
      Function<StateStoreProvider, StatePartition> open) {
    StateStoreProvider provider =
        StoreProviders.open(stateLocation, runId, conf, hadoopConf, spec, partition);
    try {
      return open.apply(provider);
    } catch (RuntimeException e) {
      provider.close();
      throw e;
    }
  }

  /**
   * Puts a key (its bytes as Spark encodes it) into column family {@code cf} unless it already
   * holds exactly this value.
   */
  public void upsert(UnsafeRow key, UnsafeRow value, String cf) {
    UnsafeRow old = view.get(key, cf);
    if (old != null && old.equals(value)) return;
    put(key, value, cf);
  }

  /** The stored value of {@code key} in column family {@code cf}, or null. */
  public UnsafeRow get(UnsafeRow key, String cf) {
    return view.get(key, cf);
  }

  /** The values of a multi-valued (list) column family under {@code key}, copied. */
  public List<UnsafeRow> values(UnsafeRow key, String cf) {
    return view.values(key, cf);
  }

  /** Every key of column family {@code cf}, copied, each once (also for list families). */
  public List<UnsafeRow> keys(String cf) {
    return view.keys(cf);
  }

  /**
   * The keys of {@code cf} a transaction's earlier statements changed or removed (a later
   * statement's partition); none otherwise.
   */
  public List<UnsafeRow> changedKeys(String cf) {
    return view.changedKeys(cf);
  }

  public void put(UnsafeRow key, UnsafeRow value, String cf) {
    sink.put(key, value, cf);
    upserted++;
  }

  /** Appends one value to a list column family ({@code merge}, as ListState.appendValue). */
  public void merge(UnsafeRow key, UnsafeRow value, String cf) {
    sink.append(key, List.of(value), cf);
    upserted++;
  }

  /** Appends values to a list column family ({@code merge}, as ListState.appendList). */
  public void mergeList(UnsafeRow key, List<UnsafeRow> values, String cf) {
    sink.append(key, values, cf);
    upserted += values.size();
  }

  /** Replaces the values of a list column family under {@code key} (as ListState.put). */
  public void putList(UnsafeRow key, List<UnsafeRow> values, String cf) {
    sink.putList(key, values, cf);
    upserted += values.size();
  }

  public void remove(UnsafeRow key, String cf) {
    sink.remove(key, cf);
    removed++;
  }

  /**
   * Records {@code keys} as the key count of the version being written, for a RocksDB full
   * image written without counting ({@link RocksDBKeyCount}); a no-op elsewhere.
   */
  public void recordImageKeys(long keys) {
    if (SparkState.provider(provider) instanceof RocksDBStateStoreProvider
        && RocksDBKeyCount.settable()) {
      RocksDBKeyCount.set(provider, keys);
    }
  }

  /**
   * For a full image of an HDFS-backed store: from here on the store keeps none of the entries
   * put and only streams them into its delta file ({@link HdfsImageMap}). True when it does;
   * such a store cannot look keys up. False for a RocksDB store (its entries are off the heap).
   */
  public boolean streamImage() {
    return store != null && HdfsImageMap.install(store);
  }

  /** Calls {@code visit} with every key of {@code cf} (a reused row: copy what you keep). */
  public void forEachKey(String cf, Consumer<UnsafeRow> visit) {
    StateStoreIterator<UnsafeRowPair> it = reads.iterator(cf);
    try {
      while (it.hasNext()) visit.accept(it.next().key());
    } finally {
      it.close();
    }
  }

  /** Commits version N+2 and reports it. */
  public PartitionCommit commit() {
    store.commit();
    CrashPoint.reach("state");
    Option<String> id = store.getStateStoreCheckpointInfo().stateStoreCkptId();
    return new PartitionCommit(
        spec.operatorId(),
        spec.storeName(),
        partition,
        id.isDefined() ? id.get() : null,
        upserted,
        removed);
  }

  /**
   * Ends a partition opened by {@link #openReadOnly}: what it would change, with the file its
   * changes are staged in (or null).
   */
  public PlannedChanges endReadOnly() {
    return ((PartitionSink.Recording) sink).end(partition);
  }

  /** Drops uncommitted changes (no-op after commit), and a staged recording. */
  public void abort() {
    if (sink != null) sink.abort();
    else reads.abort();
  }

  @Override
  public void close() {
    try {
      if (walkedEntries != null) walkedEntries.close();
    } finally {
      provider.close();
    }
  }
}
