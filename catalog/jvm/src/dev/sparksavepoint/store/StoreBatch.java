package dev.sparksavepoint.store;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.ColumnFamilies;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.StateReadability;
import dev.sparksavepoint.checkpoint.StateRef;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.checkpoint.TaskConf;
import dev.sparksavepoint.commit.BatchPlan;
import dev.sparksavepoint.read.StateSource;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.types.NullType$;
import org.apache.spark.sql.types.StructType;

/**
 * The stores of a new batch: the last committed batch N it builds on, every store of every
 * stateful operator (each gets version N+2), the StateStoreConf they open with (session conf
 * overlaid with the confs recorded in offsets/N, RocksDB changelog checkpointing on) and their
 * checkpoint-format-v2 ids. What a batch that changes no state needs ({@link #carryOver},
 * {@link CarryOver}); a write of one table adds what it edits ({@code write.WritePlan}). Built
 * on the driver; shipped to the tasks.
 */
public class StoreBatch implements BatchPlan, Serializable {
  private final String checkpoint;
  private final long batchId;
  private final List<StoreSpec> stores;
  private final StateStoreConf storeConf;
  private final TaskConf hadoopConf;

  /** Checkpoint-format-v2 ids of batch N: operator id -> [partition][store index]; or null. */
  private final HashMap<Long, String[][]> uniqueIds;

  private final String runId;

  /** What the batch did besides its change ({@link #notice}). */
  private final ArrayList<String> notices;

  protected StoreBatch(
      String checkpoint,
      long batchId,
      List<StoreSpec> stores,
      StateStoreConf storeConf,
      TaskConf hadoopConf,
      HashMap<Long, String[][]> uniqueIds) {
    this.checkpoint = checkpoint;
    this.batchId = batchId;
    this.stores = stores;
    this.storeConf = storeConf;
    this.hadoopConf = hadoopConf;
    this.uniqueIds = uniqueIds;
    this.runId = UUID.randomUUID().toString();
    this.notices = new ArrayList<>();
  }

  /** The same batch: same stores, run id and notices (a copy that changes a subclass field). */
  protected StoreBatch(StoreBatch same) {
    this.checkpoint = same.checkpoint;
    this.batchId = same.batchId;
    this.stores = same.stores;
    this.storeConf = same.storeConf;
    this.hadoopConf = same.hadoopConf;
    this.uniqueIds = same.uniqueIds;
    this.runId = same.runId;
    this.notices = same.notices;
  }

  /**
   * The batch that gives every store of {@code template}'s operators (as of batch {@code n}) an
   * empty version 1 in {@code target}: batch -1 "committed", so stores open at version 0;
   * with checkpoint format v2 when {@code formatV2}.
   */
  public static StoreBatch emptyCopy(
      SparkSession spark, Checkpoint template, long n, String target, boolean formatV2) {
    Configuration hadoopConf = spark.sessionState().newHadoopConf();
    HashMap<Long, String[][]> ids = formatV2 ? new HashMap<>() : null; // version 0 has no id
    return new StoreBatch(
        target,
        -1,
        allStores(template, n, hadoopConf),
        StoreProviders.storeConf(spark, template.location(), n, ids),
        TaskConf.of(spark.sparkContext(), hadoopConf),
        ids);
  }

  /** The batch that commits batch {@code n}'s state of every store again, as batch n+1. */
  public static StoreBatch carryOver(SparkSession spark, Checkpoint ckpt, long n) {
    Configuration hadoopConf = spark.sessionState().newHadoopConf();
    HashMap<Long, String[][]> ids = StoreProviders.uniqueIds(ckpt, n);
    return new StoreBatch(
        ckpt.location(),
        n,
        allStores(ckpt, n, hadoopConf),
        StoreProviders.storeConf(spark, ckpt.location(), n, ids),
        TaskConf.of(spark.sparkContext(), hadoopConf),
        ids);
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
        stores.add(
            op.kind().needsColumnFamilies()
                ? twsStoreSpec(ckpt.location(), op, names.get(i), i, n, hadoopConf)
                : storeSpec(ckpt, op, names.get(i), i, n));
      }
    }
    return stores;
  }

  private static StoreSpec storeSpec(
      Checkpoint ckpt, Operator op, String store, int index, long batchId) {
    Map<String, String> options = StateRef.store(op.id(), store).options(ckpt.location(), batchId);
    StructType source = StateSource.schema(ckpt, op, Operator.tableName(store), batchId, options);
    return new StoreSpec(
        op.id(),
        store,
        op.numPartitions(),
        (StructType) source.apply("key").dataType(),
        (StructType) source.apply("value").dataType(),
        index);
  }

  /**
   * A transformWithState store (RocksDB, one column family per state variable): opened with the
   * grouping key and a void value as its default family, like the operator opens it, and with
   * every column family of its state schema file registered.
   */
  private static StoreSpec twsStoreSpec(
      String path, Operator op, String store, int index, long batchId, Configuration hadoopConf) {
    ColumnFamilies families = ColumnFamilies.read(path, op, store, batchId, hadoopConf);
    StructType dummy = new StructType().add("__dummy__", NullType$.MODULE$);
    return new StoreSpec(
        op.id(), store, op.numPartitions(), families.groupingKeySchema(), dummy, index, families);
  }

  @Override
  public String checkpoint() {
    return checkpoint;
  }

  /** The last committed batch N; the batch commits N+1 with state version N+2. */
  @Override
  public long batchId() {
    return batchId;
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

  @Override
  public void notice(String line) {
    notices.add(line);
  }

  @Override
  public List<String> notices() {
    return List.copyOf(notices);
  }
}
