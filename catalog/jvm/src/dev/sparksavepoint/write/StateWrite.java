package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.commit.CheckpointCommit;
import dev.sparksavepoint.commit.DryRunReport;
import dev.sparksavepoint.commit.EditReport;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.commit.StagedImages;
import dev.sparksavepoint.store.PlannedChanges;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * One write of a state table as one new micro-batch of the checkpoint. Spark clusters the rows
 * by the key columns into exactly the operator's number of partitions (the same hash
 * partitioning as the streaming query), so task i writes state partition i. Then the driver
 * commits the untouched store partitions in one more job, and, last, commits/N+1 ({@link
 * CheckpointCommit}, which claimed the batch before any task ran). A failure anywhere removes
 * what was written; a write that changed nothing commits no batch.
 *
 * <p>A whole replace (INSERT OVERWRITE) of a store of one entry per key writes full images
 * ({@link WritePlan#imagesPossible}): each task puts its rows into an empty store in a staging
 * folder and commits it as one image, without reading, comparing or removing anything; the
 * images are moved into place around commits/N+1 ({@link StagedImages}). Such a replace always
 * commits a batch and reports the entries of the new state.
 */
final class StateWrite implements RequiresDistributionAndOrdering, BatchWrite {
  /** The plan; a full-image replace's becomes the one with its images' target. */
  private WritePlan plan;

  private final RowEncoder encoder;
  private final String[] keyColumns;
  private final String[] entryKeyColumns;
  private final boolean replace;

  /** True for a replace that writes full images ({@link WritePlan#imagesPossible}). */
  private final boolean fullImages;

  /** The transaction the write is a statement of (its changes are staged), or null. */
  private final EditTransaction transaction;

  private CheckpointCommit commit;

  /** The staging folder of a full-image replace; null for other writes. */
  private StagedImages images;

  /**
   * A write whose rows are clustered by their grouping key and encoded by {@code encoder};
   * staged in {@code transaction} when not null. {@code wholeReplace}: the replace gives the
   * whole new content (INSERT OVERWRITE), not the rows of a copy-on-write command.
   */
  StateWrite(
      WritePlan plan,
      RowEncoder encoder,
      boolean replace,
      boolean wholeReplace,
      EditTransaction transaction) {
    this.plan = plan;
    this.keyColumns = encoder.keyColumnNames();
    this.entryKeyColumns = encoder.entryKeyColumnNames();
    this.encoder = encoder;
    this.replace = replace;
    this.fullImages = wholeReplace && plan.imagesPossible();
    this.transaction = transaction;
  }

  @Override
  public String description() {
    return (replace ? "replace " : "upsert into ")
        + "savepoint state "
        + plan.uid()
        + "."
        + plan.state()
        + " as batch "
        + CheckpointLog.nextBatch(plan.batchId())
        + " of "
        + plan.checkpoint();
  }

  @Override
  public Distribution requiredDistribution() {
    Expression[] keys =
        Arrays.stream(keyColumns)
            .map(name -> Expressions.column(quoted(name)))
            .toArray(Expression[]::new);
    return Distributions.clustered(keys);
  }

  /**
   * Each partition sorted by the entry key: rows of one entry arrive together, so a task finds
   * a key given twice by comparing it with the row before (Spark's sort spills to disk; no task
   * holds the keys it has seen). Full images need no order: their store starts empty, so a
   * key found in it was given before ({@link PartitionWriter}).
   */
  @Override
  public SortOrder[] requiredOrdering() {
    if (fullImages) return new SortOrder[0];
    return Arrays.stream(entryKeyColumns)
        .map(name -> Expressions.sort(Expressions.column(quoted(name)), SortDirection.ASCENDING))
        .toArray(SortOrder[]::new);
  }

  /**
   * A column name as a one-part reference: {@code Expressions.column} parses its argument, so an
   * unaliased expression ({@code concat('k', id)}) or a dotted name must be quoted.
   */
  private static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  @Override
  public int requiredNumPartitions() {
    return plan.edited().numPartitions();
  }

  @Override
  public BatchWrite toBatch() {
    return this;
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    if (!plan.readOnly()) {
      commit = CheckpointCommit.begin(plan, description(), false);
      try {
        if (fullImages) {
          images = StagedImages.create(plan);
          plan = plan.withImages(SparkSession.active(), images.folder().toString());
        }
      } catch (RuntimeException e) {
        rollback();
        throw e;
      }
    }
    return RefusedWrites.wrap(new PartitionWriter.Factory(plan, encoder, replace), plan);
  }

  /**
   * Commits the untouched store partitions and then the batch; a write that changed no entry
   * commits no batch (its new state versions are removed again).
   */
  @Override
  public void commit(WriterCommitMessage[] messages) {
    RefusedWrites.check(messages); // Spark then calls abort(messages): the rollback
    if (plan.readOnly()) {
      List<PlannedChanges> planned = plannedChanges(messages);
      if (transaction != null) {
        transaction.staged(plan, planned);
      } else {
        PlannedChanges total = PlannedChanges.total(planned);
        DryRunReport.of(
            plan, table(), total.added(), total.changed(), total.removed(), total.samples());
      }
      return;
    }
    List<PartitionCommit> commits = new ArrayList<>(messagesOf(messages, PartitionCommit.class));
    try {
      if (!replace && EditReport.changes(commits) == 0) {
        unchanged(commits);
        return;
      }
      commits.addAll(UntouchedPartitions.commit(plan, commits, replace));
      if (images != null) {
        images.commit(commit, commits, plan.edited(), plan.images().hdfs());
        EditReport.replaced(plan, table(), commits);
        return;
      }
      if (EditReport.changes(commits) == 0) {
        unchanged(commits);
        return;
      }
      commit.finish(commits);
      EditReport.of(plan, table(), commits, true);
    } catch (RuntimeException e) {
      rollback();
      throw e;
    }
  }

  /**
   * Undoes the claim and what the tasks wrote, staged images included; after commits/N+1 (a
   * move of images failed) nothing: the staging folder is what completes the edit.
   */
  private void rollback() {
    if (commit.committed()) return;
    commit.rollback();
    if (images != null) images.discard();
  }

  /**
   * A dry run or a transaction's statement: what the tasks found, and what a replace would
   * empty in the partitions that got no rows.
   */
  private List<PlannedChanges> plannedChanges(WriterCommitMessage[] messages) {
    List<PlannedChanges> planned = new ArrayList<>(messagesOf(messages, PlannedChanges.class));
    if (replace) planned.addAll(UntouchedPartitions.plannedClears(plan, planned));
    return planned;
  }

  /**
   * Every store partition's message, each a {@code type}. Anything else fails the write (it is
   * rolled back): a message of our class loaded by another class loader (the jar loaded twice
   * in one JVM) would otherwise be skipped, and its partition's changes silently lost.
   */
  private static <T> List<T> messagesOf(WriterCommitMessage[] messages, Class<T> type) {
    List<T> out = new ArrayList<>();
    for (WriterCommitMessage m : PartitionWriter.TaskMessages.flatten(messages)) {
      if (!type.isInstance(m)) {
        throw new IllegalStateException(
            "[SAVEPOINT_INTERNAL] a write task reported "
                + (m == null
                    ? "nothing"
                    : m.getClass().getName()
                        + " (class loader "
                        + m.getClass().getClassLoader()
                        + ")")
                + " where "
                + type.getName()
                + " (class loader "
                + type.getClassLoader()
                + ") was expected: the spark-savepoint jar is loaded twice;"
                + " attach with spark_savepoint.attach, or put the jar on the driver class path.");
      }
      out.add(type.cast(m));
    }
    return out;
  }

  private void unchanged(List<PartitionCommit> commits) {
    rollback();
    EditReport.of(plan, table(), commits, false);
  }

  private String table() {
    return plan.uid() + "." + plan.state();
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    if (commit != null) rollback();
    if (transaction != null) transaction.failed(plan);
  }
}
