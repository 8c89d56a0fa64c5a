package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.commit.CheckpointCommit;
import dev.sparksavepoint.commit.DryRunReport;
import dev.sparksavepoint.commit.EditReport;
import dev.sparksavepoint.commit.PartitionCommit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
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
 */
final class StateWrite implements RequiresDistributionAndOrdering, BatchWrite {
  private final WritePlan plan;
  private final String[] keyColumns;
  private final DataWriterFactory writers;
  private final boolean replace;
  private CheckpointCommit transaction;

  /** A write whose rows are clustered by their grouping key and encoded by {@code encoder}. */
  StateWrite(WritePlan plan, RowEncoder encoder, boolean replace) {
    this.plan = plan;
    this.keyColumns = encoder.keyColumnNames();
    this.writers = new PartitionWriter.Factory(plan, encoder, replace);
    this.replace = replace;
  }

  @Override
  public String description() {
    return (replace ? "replace " : "upsert into ") + "savepoint state " + plan.uid() + "."
        + plan.state() + " as batch " + CheckpointLog.nextBatch(plan.batchId()) + " of "
        + plan.checkpoint();
  }

  @Override
  public Distribution requiredDistribution() {
    Expression[] keys = Arrays.stream(keyColumns)
        .map(name -> Expressions.column(quoted(name))).toArray(Expression[]::new);
    return Distributions.clustered(keys);
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
  public SortOrder[] requiredOrdering() {
    return new SortOrder[0];
  }

  @Override
  public BatchWrite toBatch() {
    return this;
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    if (!plan.dryRun()) transaction = CheckpointCommit.begin(plan, description(), false);
    return RefusedWrites.wrap(writers, plan);
  }

  /**
   * Commits the untouched store partitions and then the batch; a write that changed no entry
   * commits no batch (its new state versions are removed again).
   */
  @Override
  public void commit(WriterCommitMessage[] messages) {
    RefusedWrites.check(messages); // Spark then calls abort(messages): the rollback
    if (plan.dryRun()) {
      reportDryRun(messages);
      return;
    }
    List<PartitionCommit> commits = new ArrayList<>();
    for (WriterCommitMessage m : messages) {
      if (m instanceof PartitionCommit c) commits.add(c);
    }
    try {
      if (!replace && EditReport.changes(commits) == 0) {
        unchanged(commits);
        return;
      }
      commits.addAll(UntouchedPartitions.commit(plan, commits, replace));
      if (EditReport.changes(commits) == 0) {
        unchanged(commits);
        return;
      }
      transaction.finish(commits);
      EditReport.of(plan, table(), commits, true);
    } catch (RuntimeException e) {
      transaction.rollback();
      throw e;
    }
  }

  /** A dry run: what the tasks found, and what a replace would empty elsewhere; no batch. */
  private void reportDryRun(WriterCommitMessage[] messages) {
    List<PlannedChanges> planned = new ArrayList<>();
    for (WriterCommitMessage m : messages) {
      if (m instanceof PlannedChanges c) planned.add(c);
    }
    if (replace) planned.addAll(UntouchedPartitions.plannedClears(plan, planned));
    PlannedChanges total = PlannedChanges.total(planned);
    DryRunReport.of(plan, table(), total.added(), total.changed(), total.removed(),
        total.samples());
  }

  private void unchanged(List<PartitionCommit> commits) {
    transaction.rollback();
    EditReport.of(plan, table(), commits, false);
  }

  private String table() {
    return plan.uid() + "." + plan.state();
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    if (transaction != null) transaction.rollback();
  }
}
