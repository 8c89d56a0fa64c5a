package dev.sparksavepoint.write;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.OperatorKind;
import dev.sparksavepoint.checkpoint.SavepointManifest;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.checkpoint.TableOrigin;
import dev.sparksavepoint.checkpoint.TwsVariable;
import dev.sparksavepoint.commit.QueryActivity;
import dev.sparksavepoint.conf.Settings;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.image.ImageTarget;
import dev.sparksavepoint.store.StagedFiles;
import dev.sparksavepoint.store.StoreBatch;
import java.io.IOException;
import java.util.List;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.state.StateStore;

/**
 * A validated write of one state table: the batch it builds on ({@link StoreBatch}: the last
 * committed batch N, every store of every stateful operator, all of which get version N+2), the
 * store it edits and how its tasks apply the changes: to the stores, recorded for a dry run,
 * staged for a transaction, or as full images. Built on the driver by {@link #prepare}, never
 * changed afterwards ({@link #staged} and {@link #withImages} return new plans); shipped to the
 * tasks.
 */
public final class WritePlan extends StoreBatch {
  /** A join side's stores: {@code <side>-keyWithIndexToValue} and {@code <side>-keyToNumValues}. */
  static final String JOIN_VALUES = "-keyWithIndexToValue";

  static final String JOIN_COUNTS = "-keyToNumValues";

  private final String uid;
  private final String state;
  private final StoreSpec edited;

  /**
   * For a join side: the {@code keyToNumValues} store kept consistent with the edited
   * {@code keyWithIndexToValue} store; else null.
   */
  private final StoreSpec joinCounts;

  /** The transformWithState variable (or timers) the write edits, or null. */
  private final TwsVariable variable;

  /** True for a dry run ({@code spark.savepoint.write.dryRun}). */
  private final boolean dryRun;

  /**
   * For a statement of an edit transaction ({@link EditTransaction#CONF}): the folder its
   * tasks stage their changes in; else null.
   */
  private final String stagingFolder;

  /**
   * For a statement of an edit transaction: what the transaction's earlier statements staged,
   * which its tasks read the state with ({@link StagedFiles#NONE} otherwise).
   */
  private final StagedFiles earlier;

  /** Where a replace writes full images ({@link #withImages}); null for every other write. */
  private final ImageTarget images;

  private WritePlan(
      StoreBatch batch,
      String uid,
      String state,
      StoreSpec edited,
      StoreSpec joinCounts,
      TwsVariable variable,
      boolean dryRun,
      String stagingFolder,
      StagedFiles earlier,
      ImageTarget images) {
    super(batch);
    this.uid = uid;
    this.state = state;
    this.edited = edited;
    this.joinCounts = joinCounts;
    this.variable = variable;
    this.dryRun = dryRun;
    this.stagingFolder = stagingFolder;
    this.earlier = earlier;
    this.images = images;
  }

  /**
   * Validates that {@code origin} can be written now and plans the write. Validation comes
   * first; then, unless it is a dry run, what dead writers left is settled
   * ({@link WriteRecovery}).
   *
   * @param force skip the guess whether the checkpoint's query is alive ({@link QueryActivity})
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_READ_ONLY_STATE for state kinds not
   *     writable yet, SAVEPOINT_QUERY_RUNNING / _QUERY_ALIVE when the query runs or may run,
   *     SAVEPOINT_UNCOMMITTED_BATCH / _INTERRUPTED_EDIT when the last batch is planned but not
   *     committed, SAVEPOINT_CONCURRENT_WRITE when another edit committed since the statement
   *     read the table
   */
  public static WritePlan prepare(SparkSession spark, TableOrigin origin, boolean force) {
    Checkpoint ckpt = Checkpoint.open(origin.checkpoint(), spark.sessionState().newHadoopConf());
    Operator op = origin.operator();
    // what can never be written is refused first, whatever the query does
    checkWritable(ckpt.location(), op, origin);
    if (!origin.openedWritable()) checkNotSavepoint(ckpt, op, origin.state());
    QueryActivity.check(spark, ckpt, op.uid(), origin.state(), force);
    boolean dryRun =
        Boolean.parseBoolean(
            spark.sessionState().conf().getConfString(Settings.WRITE_DRY_RUN, "false"));
    long loaded = ckpt.lastCommitted();
    WriteRecovery recovery =
        dryRun
            ? WriteRecovery.none(ckpt, op.uid(), origin.state())
            : WriteRecovery.run(spark, ckpt, op.uid(), origin.state());
    ckpt = recovery.checkpoint();
    long last = ckpt.lastCommitted();
    if (origin.batchId() != last && origin.batchId() != loaded) {
      // SQL cannot write AS OF a batch: the checkpoint moved on since the statement began
      throw Errors.concurrentWrite(
          ckpt.location(),
          CheckpointLog.nextBatch(origin.batchId()),
          "batch "
              + last
              + " was committed after the statement read the table at batch "
              + origin.batchId());
    }
    StoreBatch batch = StoreBatch.carryOver(spark, ckpt, last);
    boolean join = op.kind() == OperatorKind.JOIN;
    String editedStore =
        op.kind() == OperatorKind.TWS
            ? "default"
            : join ? origin.ref().value() + JOIN_VALUES : origin.ref().value();
    StoreSpec edited = findStore(batch.stores(), op, editedStore);
    StoreSpec counts =
        join ? findStore(batch.stores(), op, origin.ref().value() + JOIN_COUNTS) : null;
    if (edited == null || (join && counts == null)) {
      throw Errors.readOnlyState(
          ckpt.location(),
          op.uid(),
          origin.state(),
          join
              ? "its stores "
                  + origin.ref().value()
                  + JOIN_VALUES
                  + " and "
                  + origin.ref().value()
                  + JOIN_COUNTS
                  + " are not both listed in the operator"
                  + " metadata of batch "
                  + last
                  + " (join state format 3 keeps one store with"
                  + " column families, which cannot be written yet)."
              : "its store is not listed in the operator metadata of batch " + last + ".");
    }
    TwsVariable variable =
        edited.families() == null
            ? null
            : TwsVariable.of(ckpt.location(), op, origin, edited.families());
    recovery.notices().forEach(batch::notice);
    return new WritePlan(
        batch,
        op.uid(),
        origin.state(),
        edited,
        counts,
        variable,
        dryRun,
        null,
        StagedFiles.NONE,
        null);
  }

  private static StoreSpec findStore(List<StoreSpec> stores, Operator op, String name) {
    return stores.stream()
        .filter(s -> s.operatorId() == op.id() && s.storeName().equals(name))
        .findFirst()
        .orElse(null);
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
      throw Errors.corruptFile(
          ckpt.location(),
          SavepointManifest.FILE,
          "the savepoint",
          e,
          "Restore the file from a copy of the savepoint.");
    }
  }

  private static void checkWritable(String path, Operator op, TableOrigin origin) {
    OperatorKind.Writes writes = op.kind().writes();
    if (writes == OperatorKind.Writes.JOIN_SIDES) {
      if (origin.ref().option().equals("joinSide")) return;
      throw Errors.readOnlyState(
          path,
          op.uid(),
          origin.state(),
          "a join's internal stores are"
              + " read-only: write the join side tables (left, right), which keep both stores of"
              + " a side consistent.");
    }
    if (writes == OperatorKind.Writes.VARIABLES) return; // per variable: TwsVariable.of
    if (writes != OperatorKind.Writes.STORE || !origin.ref().option().equals("storeName")) {
      throw Errors.readOnlyState(
          path,
          op.uid(),
          origin.state(),
          "writing "
              + op.description()
              + " state (Spark's "
              + op.name()
              + ") is not supported yet;"
              + " writable kinds: streaming aggregation (agg_N),"
              + " dropDuplicates (dedup_N), flatMapGroupsWithState/applyInPandasWithState"
              + " (groupstate_N), transformWithState state variables and timers (tws_N).");
    }
  }

  public String uid() {
    return uid;
  }

  public String state() {
    return state;
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

  /** True when the write only reports what it would change ({@code Settings.WRITE_DRY_RUN}). */
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

  /**
   * This write as a statement of an edit transaction staging its changes in {@code folder},
   * reading the state with the changes {@code earlier} statements staged.
   */
  WritePlan staged(String folder, StagedFiles earlier) {
    return new WritePlan(
        this, uid, state, edited, joinCounts, variable, dryRun, folder, earlier, images);
  }

  /** What the transaction's earlier statements staged ({@link StagedFiles#NONE} if none). */
  StagedFiles earlier() {
    return earlier;
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

  /** This write as a full-image replace whose tasks write under {@code staging}. */
  WritePlan withImages(SparkSession spark, String staging) {
    return new WritePlan(
        this,
        uid,
        state,
        edited,
        joinCounts,
        variable,
        dryRun,
        stagingFolder,
        earlier,
        ImageTarget.of(spark, this, staging));
  }

  /** The target of a full-image replace, or null. */
  ImageTarget images() {
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
}
