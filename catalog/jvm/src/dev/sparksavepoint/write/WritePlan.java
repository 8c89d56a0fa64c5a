package dev.sparksavepoint.write;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.ColumnFamilies;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.SavepointManifest;
import dev.sparksavepoint.checkpoint.StateReadability;
import dev.sparksavepoint.checkpoint.StateRef;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.checkpoint.TableOrigin;
import dev.sparksavepoint.checkpoint.TwsVariable;
import dev.sparksavepoint.commit.BatchPlan;
import dev.sparksavepoint.commit.QueryActivity;
import dev.sparksavepoint.commit.StagingFolders;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.read.StateSource;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * A validated write of one state table: the last committed batch N the write starts from, the
 * store it edits, every store of every stateful operator (all get a new version N+2), and the
 * StateStoreConf (session conf overlaid with the confs recorded in offsets/N, RocksDB changelog
 * checkpointing on). Built on the driver by {@link #prepare}; shipped to the tasks.
 */
public final class WritePlan implements BatchPlan, Serializable {
  /**
   * A session setting: when true, a write is a dry run. It reads the state and reports what it
   * would add, change and remove ({@code commit.DryRunReport}), and claims, writes and commits
   * nothing.
   */
  public static final String DRY_RUN_CONF = "spark.savepoint.write.dryRun";

  /** A join side's stores: {@code <side>-keyWithIndexToValue} and {@code <side>-keyToNumValues}. */
  static final String JOIN_VALUES = "-keyWithIndexToValue";

  static final String JOIN_COUNTS = "-keyToNumValues";

  /** Operator kinds whose single store can be written. */
  static final Set<String> WRITABLE_KINDS = Set.of("agg", "dedup", "groupstate", "tws");

  private final String checkpoint;
  private final String uid;
  private final String state;
  private final long batchId;
  private final StoreSpec edited;
  private final List<StoreSpec> stores;
  private final StateStoreConf storeConf;
  private final SerializableConfiguration hadoopConf;
  /** Checkpoint-format-v2 ids of batch N: operator id -> [partition][store index]; or null. */
  private final HashMap<Long, String[][]> uniqueIds;
  private final String runId = UUID.randomUUID().toString();
  /** What the edit did besides its change ({@link #notice}). */
  private final ArrayList<String> notices = new ArrayList<>();
  /** The transformWithState variable (or timers) the write edits, or null. */
  private TwsVariable variable;
  /**
   * For a join side: the {@code keyToNumValues} store kept consistent with the edited
   * {@code keyWithIndexToValue} store; else null.
   */
  private StoreSpec joinCounts;
  /** True for a dry run ({@link #DRY_RUN_CONF}). */
  private boolean dryRun;
  /**
   * For a statement of an edit transaction ({@link EditTransaction#CONF}): the folder its
   * tasks stage their changes in; else null.
   */
  private String stagingFolder;
  /** Where a replace writes full images ({@link #writeImages}); null for every other write. */
  private Images images;

  /**
   * The target of a full-image replace: the staging folder its tasks write into, the store conf
   * of an image commit (a RocksDB commit uploads a {@code .zip}, no changelog), and whether the
   * store is HDFS-backed (its image is committed there as version 1, a delta on top of no state,
   * which becomes the snapshot of version N+2).
   */
  record Images(String staging, StateStoreConf conf, boolean hdfs) implements Serializable {
    String stateLocation() {
      return new Path(staging, "state").toString();
    }
  }

  private WritePlan(String checkpoint, String uid, String state, long batchId, StoreSpec edited,
      List<StoreSpec> stores, StateStoreConf storeConf, Configuration hadoopConf,
      HashMap<Long, String[][]> uniqueIds) {
    this.checkpoint = checkpoint;
    this.uid = uid;
    this.state = state;
    this.batchId = batchId;
    this.edited = edited;
    this.stores = stores;
    this.storeConf = storeConf;
    this.hadoopConf = new SerializableConfiguration(hadoopConf);
    this.uniqueIds = uniqueIds;
  }

  /**
   * Validates that {@code origin} can be written now and plans the write. When the last batch
   * is an interrupted edit's whose writer is gone, completes that batch first
   * ({@link EmptyBatch}).
   *
   * @param force skip the guess whether the checkpoint's query is alive ({@link QueryActivity})
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_QUERY_RUNNING / _QUERY_ALIVE when
   *     the query runs or may run, SAVEPOINT_UNCOMMITTED_BATCH / _INTERRUPTED_EDIT when the last
   *     batch is planned but not committed, SAVEPOINT_CONCURRENT_WRITE when another edit
   *     committed since the statement read the table, SAVEPOINT_READ_ONLY_STATE for state kinds not writable yet
   */
  public static WritePlan prepare(SparkSession spark, TableOrigin origin, boolean force) {
    Configuration hadoopConf = spark.sessionState().newHadoopConf();
    Checkpoint ckpt = Checkpoint.open(origin.checkpoint(), hadoopConf);
    Operator op = origin.operator();
    // what can never be written is refused first, whatever the query does
    checkWritable(ckpt.location(), op, origin);
    if (!origin.openedWritable()) checkNotSavepoint(ckpt, op, origin.state());
    QueryActivity.check(spark, ckpt, op.uid(), origin.state(), force);
    boolean dryRun = Boolean.parseBoolean(
        spark.sessionState().conf().getConfString(DRY_RUN_CONF, "false"));
    // a dry run changes nothing, not even what dead writers left
    List<String> notices = dryRun ? new ArrayList<>() : new ArrayList<>(completeAbandoned(ckpt));
    long loaded = ckpt.lastCommitted();
    if (ckpt.lastPlanned() > loaded) {
      // a transaction's statement completes it too (then the transaction starts from it)
      String completed = dryRun ? null : EmptyBatch.completeInterruptedEdit(spark, ckpt, false);
      if (completed == null) {
        throw Errors.writeUncommitted(ckpt.location(), op.uid(), origin.state(),
            ckpt.lastPlanned());
      }
      notices.add(completed);
      // the completed batch holds the state of the batch before it, where the table was loaded
      ckpt = Checkpoint.open(origin.checkpoint(), hadoopConf);
    }
    long last = ckpt.lastCommitted();
    if (origin.batchId() != last && origin.batchId() != loaded) {
      // SQL cannot write AS OF a batch: the checkpoint moved on since the statement began
      throw Errors.concurrentWrite(ckpt.location(), CheckpointLog.nextBatch(origin.batchId()),
          "batch " + last
          + " was committed after the statement read the table at batch " + origin.batchId());
    }
    List<StoreSpec> stores = allStores(ckpt, last, hadoopConf);
    boolean join = op.kind().equals("join");
    String editedStore = op.kind().equals("tws") ? "default"
        : join ? origin.ref().value() + JOIN_VALUES : origin.ref().value();
    StoreSpec edited = findStore(stores, op, editedStore);
    StoreSpec counts = join ? findStore(stores, op, origin.ref().value() + JOIN_COUNTS) : null;
    if (edited == null || (join && counts == null)) {
      throw Errors.readOnlyState(ckpt.location(), op.uid(), origin.state(), join
          ? "its stores " + origin.ref().value() + JOIN_VALUES + " and "
              + origin.ref().value() + JOIN_COUNTS + " are not both listed in the operator"
              + " metadata of batch " + last + " (join state format 3 keeps one store with"
              + " column families, which cannot be written yet)."
          : "its store is not listed in the operator metadata of batch " + last + ".");
    }
    HashMap<Long, String[][]> ids = StoreProviders.uniqueIds(ckpt, last);
    WritePlan plan = new WritePlan(ckpt.location(), op.uid(), origin.state(), last, edited,
        stores, StoreProviders.storeConf(spark, ckpt.location(), last, ids), hadoopConf, ids);
    plan.joinCounts = counts;
    if (edited.families() != null) {
      plan.variable = TwsVariable.of(ckpt.location(), op, origin, edited.families());
    }
    plan.dryRun = dryRun;
    plan.notices.addAll(notices);
    return plan;
  }

  /**
   * Completes what killed writers left in staging folders: a committed full-image overwrite's
   * images are moved into place, anything else is removed ({@link StagingFolders}).
   */
  private static List<String> completeAbandoned(Checkpoint ckpt) {
    try {
      return StagingFolders.removeAbandoned(ckpt.fileSystem(), ckpt.root());
    } catch (IOException e) {
      throw Errors.writeFailed(ckpt.location(), "complete or remove abandoned staging folders",
          e);
    }
  }

  @Override
  public void notice(String line) {
    notices.add(line);
  }

  @Override
  public List<String> notices() {
    return List.copyOf(notices);
  }

  private static StoreSpec findStore(List<StoreSpec> stores, Operator op, String name) {
    return stores.stream()
        .filter(s -> s.operatorId() == op.id() && s.storeName().equals(name))
        .findFirst().orElse(null);
  }

  /**
   * Refuses writes into a savepoint ({@code _savepoint.json}) unless it was taken writable.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_READ_ONLY_SAVEPOINT
   */
  private static void checkNotSavepoint(Checkpoint ckpt, Operator op, String state) {
    try {
      JsonNode manifest = SavepointManifest.read(ckpt.fileSystem(), ckpt.root());
      if (manifest != null && !SavepointManifest.writable(manifest)) {
        throw Errors.readOnlySavepoint(ckpt.location(), op.uid(), state);
      }
    } catch (IOException e) {
      throw Errors.corruptFile(ckpt.location(), SavepointManifest.FILE, "the savepoint", e,
          "Restore the file from a copy of the savepoint.");
    }
  }

  /** Every store of every stateful operator of {@code ckpt} as of batch {@code n}. */
  public static List<StoreSpec> allStores(Checkpoint ckpt, long n, Configuration hadoopConf) {
    List<StoreSpec> stores = new ArrayList<>();
    for (Operator op : ckpt.operators(n)) {
      // every store gets a new version, which needs its schema
      String table = op.tableNames().isEmpty() ? "default" : op.tableNames().get(0);
      StateReadability.check(ckpt, op, table, n);
      List<String> names = op.storeNames();
      for (int i = 0; i < names.size(); i++) {
        stores.add(op.kind().equals("tws")
            ? twsStoreSpec(ckpt.location(), op, names.get(i), i, n, hadoopConf)
            : storeSpec(ckpt.location(), op, names.get(i), i, n));
      }
    }
    return stores;
  }

  /**
   * The plan that gives every store of {@code template}'s operators (as of batch {@code n}) an
   * empty version 1 in {@code target}: batch -1 "committed", so stores open at version 0;
   * with checkpoint format v2 when {@code formatV2}.
   */
  public static WritePlan emptyCopy(SparkSession spark, Checkpoint template, long n, String target,
      boolean formatV2) {
    Configuration hadoopConf = spark.sessionState().newHadoopConf();
    HashMap<Long, String[][]> ids = formatV2 ? new HashMap<>() : null; // version 0 has no id
    return new WritePlan(target, "*", "*", -1, null, allStores(template, n, hadoopConf),
        StoreProviders.storeConf(spark, template.location(), n, ids), hadoopConf, ids);
  }

  /** The plan that commits batch {@code n}'s state of every store again, as batch n+1. */
  public static WritePlan carryOver(SparkSession spark, Checkpoint ckpt, long n) {
    Configuration hadoopConf = spark.sessionState().newHadoopConf();
    HashMap<Long, String[][]> ids = StoreProviders.uniqueIds(ckpt, n);
    return new WritePlan(ckpt.location(), "*", "*", n, null, allStores(ckpt, n, hadoopConf),
        StoreProviders.storeConf(spark, ckpt.location(), n, ids), hadoopConf, ids);
  }

  private static void checkWritable(String path, Operator op, TableOrigin origin) {
    String kind = op.kind();
    if (kind.equals("join")) {
      if (origin.ref().option().equals("joinSide")) return;
      throw Errors.readOnlyState(path, op.uid(), origin.state(), "a join's internal stores are"
          + " read-only: write the join side tables (left, right), which keep both stores of"
          + " a side consistent.");
    }
    if (kind.equals("tws")) return; // per variable: TwsVariable.of
    if (!WRITABLE_KINDS.contains(kind) || !origin.ref().option().equals("storeName")) {
      throw Errors.readOnlyState(path, op.uid(), origin.state(), "writing "
          + op.description() + " state (Spark's " + op.name() + ") is not supported yet;"
          + " writable kinds: streaming aggregation (agg_N),"
          + " dropDuplicates (dedup_N), flatMapGroupsWithState/applyInPandasWithState"
          + " (groupstate_N), transformWithState state variables and timers (tws_N).");
    }
  }

  private static StoreSpec storeSpec(String path, Operator op, String store, int index,
      long batchId) {
    Map<String, String> options = StateRef.store(op.id(), store).options(path, batchId);
    StructType source = StateSource.schema(path, op, Operator.tableName(store), batchId, options);
    return new StoreSpec(op.id(), store, op.numPartitions(),
        (StructType) source.apply("key").dataType(), (StructType) source.apply("value").dataType(),
        index);
  }

  /**
   * A transformWithState store (RocksDB, one column family per state variable): opened with the
   * grouping key and a void value as its default family, like the operator opens it, and with
   * every column family of its state schema file registered.
   */
  private static StoreSpec twsStoreSpec(String path, Operator op, String store, int index,
      long batchId, Configuration hadoopConf) {
    ColumnFamilies families = ColumnFamilies.read(path, op, store, batchId, hadoopConf);
    StructType dummy = new StructType().add("__dummy__", org.apache.spark.sql.types.NullType$.MODULE$);
    return new StoreSpec(op.id(), store, op.numPartitions(), families.groupingKeySchema(), dummy,
        index, families);
  }

  @Override
  public String checkpoint() {
    return checkpoint;
  }

  public String uid() {
    return uid;
  }

  public String state() {
    return state;
  }

  /** The last committed batch N; the write commits batch N+1 with state version N+2. */
  @Override
  public long batchId() {
    return batchId;
  }

  public StoreSpec edited() {
    return edited;
  }

  /**
   * Every store the write changes: {@link #edited}, and for a join side also its
   * {@code keyToNumValues} store.
   */
  List<StoreSpec> editedStores() {
    return joinCounts == null ? List.of(edited) : List.of(edited, joinCounts);
  }

  /** A join side's {@code keyToNumValues} store, or null. */
  StoreSpec joinCounts() {
    return joinCounts;
  }

  /** The transformWithState variable (or timers) the write edits; null for other state. */
  TwsVariable variable() {
    return variable;
  }

  /** True when the write only reports what it would change ({@link #DRY_RUN_CONF}). */
  boolean dryRun() {
    return dryRun;
  }

  /**
   * The folder a statement of an edit transaction stages its changes in, or null when the
   * write commits its own batch (or is a dry run).
   */
  String stagingFolder() {
    return stagingFolder;
  }

  /** Makes the write a statement of an edit transaction staging its changes in {@code folder}. */
  void stageIn(String folder) {
    stagingFolder = folder;
  }

  /**
   * True when a replace of the edited store may write full images instead of changes: a store
   * of one entry per key without column families (aggregation, dropDuplicates, groupsWithState),
   * written for real (not a dry run, not a transaction's statement). Every supported Spark
   * version loads the images (tests/compat: restarted on 3.5 to 4.3).
   */
  boolean imagesPossible() {
    return !readOnly() && joinCounts == null && variable == null && edited.families() == null;
  }

  /** Makes the write a full-image replace whose tasks write under {@code staging}. */
  void writeImages(SparkSession spark, String staging) {
    SQLConf conf = StoreProviders.recordedConf(spark, checkpoint, batchId);
    conf.setConfString(StoreProviders.CHANGELOG_CHECKPOINTING, "false");
    conf.setConfString(CheckpointLog.FORMAT_VERSION_CONF, uniqueIds == null ? "1" : "2");
    boolean rocksdb = conf.getConfString(StoreProviders.PROVIDER_CONF, "").contains("RocksDB");
    if (rocksdb && RocksDBKeyCount.settable()) conf.setConfString(RocksDBKeyCount.CONF, "false");
    images = new Images(staging, StateStoreConf.apply(conf), !rocksdb);
  }

  /** The target of a full-image replace, or null. */
  Images images() {
    return images;
  }

  /** True when the write's tasks only read the state: a dry run, or a transaction's statement. */
  boolean readOnly() {
    return dryRun || stagingFolder != null;
  }

  /** The column family the write edits ("default", or the variable's own). */
  String editedFamily() {
    return variable == null ? StateStore.DEFAULT_COL_FAMILY_NAME() : variable.family();
  }

  @Override
  public List<StoreSpec> stores() {
    return stores;
  }

  public StateStoreConf storeConf() {
    return storeConf;
  }

  @Override
  public Configuration hadoopConf() {
    return hadoopConf.value();
  }

  public UUID runId() {
    return UUID.fromString(runId);
  }

  @Override
  public boolean hasUniqueIds() {
    return uniqueIds != null;
  }

  /** The v2 checkpoint id of version N+1 of a store partition, or null. */
  public String uniqueId(StoreSpec spec, int partition) {
    return StoreProviders.uniqueId(uniqueIds, spec, partition);
  }
}
