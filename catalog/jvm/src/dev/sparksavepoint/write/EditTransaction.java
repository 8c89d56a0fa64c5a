package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.commit.CheckpointCommit;
import dev.sparksavepoint.commit.DryRunReport;
import dev.sparksavepoint.commit.EditReport;
import dev.sparksavepoint.commit.EditStatements;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.commit.QueryActivity;
import dev.sparksavepoint.commit.StagingFolders;
import dev.sparksavepoint.conf.Settings;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.logedit.WatermarkEdit;
import dev.sparksavepoint.store.CarryOver;
import dev.sparksavepoint.store.PlannedChanges;
import dev.sparksavepoint.store.StagedEdits;
import dev.sparksavepoint.store.StagedFiles;
import dev.sparksavepoint.store.StatePartition;
import dev.sparksavepoint.store.StoreBatch;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Several statements, one batch. While the session setting
 * {@code spark.savepoint.write.transaction} names an open transaction, each INSERT, DELETE, UPDATE
 * or MERGE on a state table runs its checks and its tasks as usual, but the tasks only read batch N
 * and record the changes they would make ({@link StagedEdits}) in the transaction's staging folder
 * {@code <checkpoint>/_savepoint-tx-<id>} ({@link StagingFolders}; one a killed driver left is
 * removed by the next transaction). {@link #commit} then claims batch N+1 once, replays every
 * statement's changes onto the stores of batch N through Spark's providers (one task per changed
 * store partition), carries the other partitions over and writes commits/N+1 last, exactly like a
 * single edit ({@link CheckpointCommit}): all statements land as one batch, or none.
 * {@link #rollback}, like a failed commit, removes the staging folder: the checkpoint is as before,
 * byte for byte.
 *
 * <p>Statements see the ones before them, as a user means a script: a statement that reads or
 * edits a table an earlier statement edited reads batch N with the earlier statements' staged
 * changes over it ({@link StagedRows} in scans, {@link StagedFiles} in its tasks), and the
 * commit replays the statements in their order, so the last change of a key wins. All
 * statements edit one checkpoint (another one: SAVEPOINT_TRANSACTION_CONFLICT).
 *
 * <pre>
 *   String id = EditTransaction.begin();           // Python: with edit(spark) as tx:
 *   SET spark.savepoint.write.transaction = id;    //   tx.sql("DELETE FROM ...")
 *   DELETE FROM savepoint.agg_0.default WHERE ...; //   tx.sql("INSERT INTO ...")
 *   INSERT INTO savepoint.dedup_1.default ...;
 *   EditTransaction.of(id).commit(spark);          // on leaving the block
 * </pre>
 */
public final class EditTransaction {
  private static final Map<String, EditTransaction> OPEN = new ConcurrentHashMap<>();

  private final String id;

  /** Fixed by the first statement: the checkpoint, its last committed batch N, Hadoop conf. */
  private String checkpoint;

  private long batchId = -1;
  private Configuration hadoopConf;
  private int statements;

  /** The plan of a statement that staged changes, by the table it edited ({@link #tableKey}). */
  private final Map<String, WritePlan> edited = new HashMap<>();

  private final List<Staged> staged = new ArrayList<>();

  /** The SQL text of each statement that staged changes, by statement number (for the record). */
  private final java.util.TreeMap<Integer, String> texts = new java.util.TreeMap<>();

  /** One statement's staged changes: the table it edited and each store partition's. */
  record Staged(
      int statement, String uid, String state, long operatorId, List<PlannedChanges> partitions) {
    String table() {
      return uid + "." + state;
    }
  }

  /** One store partition to commit: its staged files, in statement order. */
  record Replay(StoreSpec spec, int partition, List<String> files) implements Serializable {}

  private EditTransaction(String id) {
    this.id = id;
  }

  /** Opens a transaction; its id is what {@code spark.savepoint.write.transaction} is set to. */
  public static String begin() {
    String id = UUID.randomUUID().toString();
    OPEN.put(id, new EditTransaction(id));
    return id;
  }

  /**
   * The open transaction {@code id}.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_TRANSACTION_ENDED
   */
  public static EditTransaction of(String id) {
    EditTransaction tx = OPEN.get(id);
    if (tx == null) throw Errors.transactionEnded(id, Settings.WRITE_TRANSACTION);
    return tx;
  }

  /** The transaction the session's writes are staged in ({@code Settings.WRITE_TRANSACTION}). */
  static EditTransaction active(SparkSession spark) {
    String id = spark.sessionState().conf().getConfString(Settings.WRITE_TRANSACTION, "");
    return id.isEmpty() ? null : of(id);
  }

  /**
   * The rows of table {@code state} of operator {@code operatorId} of {@code checkpoint}, read at
   * batch {@code batchId}, as this session's transaction left them (batch N with its statements'
   * staged changes over it), for a table of {@code schema}; null when no statement of an open
   * transaction changed the table, or the read is of another batch (VERSION AS OF).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_TRANSACTION_CONFLICT when the table
   *     cannot be read so (its columns are not the ones its writes take)
   */
  public static StagedRows stagedRows(
      SparkSession spark,
      String checkpoint,
      String uid,
      long operatorId,
      String state,
      long batchId,
      StructType schema) {
    EditTransaction tx = active(spark);
    if (tx == null) return null;
    return tx.rowsOf(spark, checkpoint, uid, operatorId, state, batchId, schema);
  }

  private synchronized StagedRows rowsOf(
      SparkSession spark,
      String path,
      String uid,
      long operatorId,
      String state,
      long batch,
      StructType schema) {
    WritePlan plan = path.equals(checkpoint) ? edited.get(tableKey(operatorId, state)) : null;
    if (plan == null || batch != batchId) return null;
    StagedRows rows = StagedRows.of(spark, plan, schema, StagedFiles.of(changes()));
    if (rows == null) {
      throw Errors.transactionConflict(
          path,
          uid,
          state,
          "an earlier statement of this transaction edited it, and its columns cannot be read"
              + " with the staged changes. Commit the transaction first");
    }
    return rows;
  }

  /** Every staged change so far, in statement order. */
  private List<PlannedChanges> changes() {
    List<PlannedChanges> changes = new ArrayList<>();
    for (Staged s : staged) {
      for (PlannedChanges c : s.partitions()) {
        if (c.stagedFile() != null) changes.add(c);
      }
    }
    return changes;
  }

  /**
   * Admits the write {@code plan} as the transaction's next statement: it must edit the same
   * checkpoint at the same batch as the statements before it. Returns the plan staging its
   * changes in a folder of its own and reading what the statements before it staged.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_TRANSACTION_CONFLICT for another
   *     checkpoint, SAVEPOINT_CONCURRENT_WRITE when the checkpoint moved on since the first
   *     statement
   */
  synchronized WritePlan admit(WritePlan plan) {
    if (checkpoint == null) {
      checkpoint = plan.checkpoint();
      batchId = plan.batchId();
      hadoopConf = plan.hadoopConf();
      makeStaging();
    } else if (!checkpoint.equals(plan.checkpoint())) {
      throw Errors.transactionConflict(
          plan.checkpoint(),
          plan.uid(),
          plan.state(),
          "this"
              + " transaction edits checkpoint '"
              + checkpoint
              + "'; a transaction edits one"
              + " checkpoint. Edit the other one in a transaction of its own");
    } else if (batchId != plan.batchId()) {
      throw Errors.concurrentWrite(
          checkpoint,
          CheckpointLog.nextBatch(batchId),
          "batch "
              + plan.batchId()
              + " was committed after this transaction began at batch "
              + batchId);
    }
    int statement = ++statements;
    String folder = new Path(staging(), Integer.toString(statement)).toString();
    return plan.staged(folder, StagedFiles.of(changes()));
  }

  /** Records what statement {@code plan} staged (its tasks' and clears' changes). */
  synchronized void staged(WritePlan plan, List<PlannedChanges> partitions) {
    if (partitions.stream().anyMatch(c -> c.stagedFile() != null)) {
      edited.put(tableKey(plan.edited().operatorId(), plan.state()), plan);
    }
    String text = EditStatements.take();
    if (text != null) texts.putIfAbsent(statementOf(plan), text);
    staged.add(
        new Staged(
            statementOf(plan),
            plan.uid(),
            plan.state(),
            plan.edited().operatorId(),
            List.copyOf(partitions)));
  }

  /** Forgets a statement that failed and removes what it staged: as if it never ran. */
  synchronized void failed(WritePlan plan) {
    delete(new Path(plan.stagingFolder()));
  }

  private static int statementOf(WritePlan plan) {
    return Integer.parseInt(new Path(plan.stagingFolder()).getName());
  }

  private static String tableKey(long operatorId, String state) {
    return operatorId + "/" + state;
  }

  /**
   * Makes the staging folder (recording this driver as its writer), after removing those of
   * transactions whose driver was killed.
   */
  private void makeStaging() {
    try {
      FileSystem fs = staging().getFileSystem(hadoopConf);
      StagingFolders.removeAbandoned(fs, new Path(checkpoint));
      StagingFolders.create(fs, staging());
    } catch (IOException e) {
      String path = checkpoint;
      checkpoint = null;
      throw Errors.writeFailed(path, "make the transaction's staging folder", e);
    }
  }

  private Path staging() {
    return new Path(checkpoint, StagingFolders.PREFIX + id);
  }

  /** Per statement so far: what it would add, change and remove (nothing is written). */
  public synchronized List<DryRunReport> plan() {
    List<DryRunReport> reports = new ArrayList<>();
    for (Staged s : staged) {
      PlannedChanges total = PlannedChanges.total(s.partitions());
      reports.add(
          new DryRunReport(
              checkpoint,
              s.table(),
              CheckpointLog.nextBatch(batchId),
              total.added(),
              total.changed(),
              total.removed(),
              total.samples()));
    }
    return reports;
  }

  /**
   * Ends the transaction: commits every statement's changes as batch N+1 (none changed
   * anything: no batch), then removes the staging folder. On failure nothing is committed.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CONCURRENT_WRITE when the
   *     checkpoint moved on since the first statement; SAVEPOINT_QUERY_RUNNING/_ALIVE
   */
  public synchronized EditReport commit(SparkSession spark) {
    return commit(spark, false);
  }

  /**
   * {@link #commit}; {@code evicts}: the batch runs the watermark the last batch set for the
   * next one, as a no-data batch of Spark's does ({@link WatermarkEdit#evictingEntry}): a purge of
   * the state that watermark evicts.
   */
  public synchronized EditReport commit(SparkSession spark, boolean evicts) {
    OPEN.remove(id);
    try {
      if (checkpoint == null) return null; // no statement
      String tables = String.join(", ", staged.stream().map(Staged::table).distinct().toList());
      List<PlannedChanges> changes = changes();
      Checkpoint ckpt = Checkpoint.open(checkpoint, hadoopConf);
      StoreBatch plan = StoreBatch.carryOver(spark, ckpt, batchId);
      if (changes.isEmpty()) return EditReport.of(plan, tables, List.of(), false);
      Staged first = staged.get(0);
      QueryActivity.check(spark, ckpt, first.uid(), first.state(), false);
      if (ckpt.lastCommitted() != batchId || ckpt.lastPlanned() != batchId) {
        throw Errors.concurrentWrite(
            checkpoint,
            CheckpointLog.nextBatch(batchId),
            "batch "
                + ckpt.lastPlanned()
                + " was planned or committed after this transaction began"
                + " at batch "
                + batchId);
      }
      String what =
          "transaction of "
              + staged.size()
              + " statements ("
              + tables
              + ") as batch "
              + CheckpointLog.nextBatch(batchId)
              + " of "
              + checkpoint;
      CheckpointCommit commit =
          EditStatements.during(
              List.copyOf(texts.values()),
              () ->
                  evicts
                      ? CheckpointCommit.begin(
                          plan, what, WatermarkEdit.evictingEntry(ckpt, batchId))
                      : CheckpointCommit.begin(plan, what, false));
      try {
        List<PartitionCommit> commits = replay(plan, changes, tables);
        commits.addAll(
            CarryOver.commit(
                plan,
                CarryOver.missing(plan, commits, List.of()),
                null,
                "savepoint: commit untouched state partitions of the transaction editing "
                    + tables));
        commit.finish(commits);
        return EditReport.of(plan, tables, commits, true);
      } catch (RuntimeException e) {
        commit.rollback();
        throw e;
      }
    } finally {
      removeStaging();
    }
  }

  /** Ends the transaction without committing: removes what its statements staged. */
  public synchronized void rollback() {
    OPEN.remove(id);
    CheckpointCommit.awaitRunningTasks(); // a failed statement's last tasks
    removeStaging();
  }

  /** One task per changed store partition: its staged files replayed onto version N+1. */
  private static List<PartitionCommit> replay(
      StoreBatch plan, List<PlannedChanges> changes, String tables) {
    Map<String, Replay> items = new LinkedHashMap<>();
    for (PlannedChanges c : changes) {
      StoreSpec spec =
          plan.stores().stream()
              .filter(s -> s.operatorId() == c.operatorId() && s.storeName().equals(c.storeName()))
              .findFirst()
              .orElseThrow();
      items
          .computeIfAbsent(
              c.operatorId() + "/" + c.storeName() + "/" + c.partition(),
              k -> new Replay(spec, c.partition(), new ArrayList<>()))
          .files()
          .add(c.stagedFile());
    }
    List<Replay> work = new ArrayList<>(items.values());
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkSession.active().sparkContext());
    sc.setJobDescription("savepoint: commit the transaction editing " + tables);
    try {
      return new ArrayList<>(
          sc.parallelize(work, work.size()).map(item -> replayPartition(plan, item)).collect());
    } finally {
      sc.setJobDescription(null);
    }
  }

  private static PartitionCommit replayPartition(StoreBatch plan, Replay item) {
    try (StatePartition store = StatePartition.open(plan, item.spec(), item.partition())) {
      try {
        StagedEdits.replayAll(item.files(), plan.hadoopConf(), store);
        return store.commit();
      } catch (RuntimeException e) {
        store.abort();
        throw e;
      }
    }
  }

  private void removeStaging() {
    if (checkpoint != null) delete(staging());
  }

  private void delete(Path folder) {
    try {
      folder.getFileSystem(hadoopConf).delete(folder, true);
    } catch (IOException e) {
      throw Errors.writeFailed(checkpoint, "remove the transaction's staging folder " + folder, e);
    }
  }
}
