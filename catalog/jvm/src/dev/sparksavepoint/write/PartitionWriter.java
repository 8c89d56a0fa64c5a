package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.errors.Errors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * The task side of a write: the rows of one state partition (Spark has shuffled them by key
 * exactly like the streaming query) are checked (no NULL key, right partition, no key twice)
 * and applied to version N+1 of the edited store by the state kind's {@link StateEdits}; a
 * replace also removes what it was not given. {@link #commit} commits version N+2; on any
 * failure nothing of this partition is committed. In a dry run the partition is read-only and
 * {@link #commit} reports what it would have changed.
 */
final class PartitionWriter implements DataWriter<InternalRow> {
  private final WritePlan plan;
  private final int partition;
  private final boolean replace;
  private final RowEncoder.Bound encoder;
  private final StateEdits edits;
  private final Set<UnsafeRow> seen = new HashSet<>();
  private final StatePartition store;
  /** A join side's {@code keyToNumValues} partition, kept consistent with {@link #store}. */
  private final StatePartition counts;

  PartitionWriter(WritePlan plan, RowEncoder encoder, boolean replace, int partition) {
    this.plan = plan;
    this.partition = partition;
    this.replace = replace;
    this.encoder = encoder.bind();
    this.edits = StateEdits.of(plan);
    this.store = open(plan, plan.edited(), partition, plan.editedFamily());
    if (plan.joinCounts() == null) {
      this.counts = null;
    } else {
      StatePartition second;
      try {
        second = open(plan, plan.joinCounts(), partition, COUNTED_NOWHERE);
      } catch (RuntimeException e) {
        store.abort();
        store.close();
        throw e;
      }
      this.counts = second;
      edits.attach(second);
    }
  }

  /** A family name no store has: a dry run counts the changes of the edited store only. */
  private static final String COUNTED_NOWHERE = "";

  /** A store partition, read-only for a dry run or a transaction's statement. */
  static StatePartition open(WritePlan plan, StoreSpec spec, int partition, String family) {
    return plan.readOnly() ? StatePartition.openDryRun(plan, spec, partition, family)
        : StatePartition.open(plan, spec, partition);
  }

  @Override
  public void write(InternalRow row) {
    String nullColumn = encoder.nullKeyColumn(row);
    if (nullColumn != null) {
      throw Errors.nullKey(plan.checkpoint(), plan.uid(), plan.state(), nullColumn);
    }
    int expected = encoder.partition(row);
    if (expected != partition) {
      throw Errors.wrongPartition(plan.checkpoint(), plan.uid(), plan.state(),
          encoder.describe(row), expected, partition);
    }
    UnsafeRow key = edits.uniqueKey(encoder, row);
    if (key != null) {
      key = key.copy();
      if (!seen.add(key)) {
        throw Errors.duplicateKey(plan.checkpoint(), plan.uid(), plan.state(),
            encoder.describe(row));
      }
    }
    edits.apply(store, encoder, row, key);
  }

  @Override
  public WriterCommitMessage commit() {
    edits.finish(store, replace, seen);
    WriterCommitMessage edited = end(store);
    return counts == null ? edited : new TaskMessages(List.of(edited, end(counts)));
  }

  private WriterCommitMessage end(StatePartition partition) {
    return plan.readOnly() ? partition.endReadOnly() : partition.commit();
  }

  @Override
  public void abort() {
    store.abort();
    if (counts != null) counts.abort();
  }

  @Override
  public void close() {
    store.close();
    if (counts != null) counts.close();
  }

  /** What a task that commits two store partitions (a join side's) reports. */
  record TaskMessages(List<WriterCommitMessage> parts) implements WriterCommitMessage {
    /** Every store partition's message of a write's tasks. */
    static List<WriterCommitMessage> flatten(WriterCommitMessage[] messages) {
      List<WriterCommitMessage> out = new ArrayList<>();
      for (WriterCommitMessage m : messages) {
        if (m instanceof TaskMessages several) out.addAll(several.parts());
        else out.add(m);
      }
      return out;
    }
  }

  /** Serialized to the executors; one writer per state partition. */
  static final class Factory implements DataWriterFactory {
    private final WritePlan plan;
    private final RowEncoder encoder;
    private final boolean replace;

    Factory(WritePlan plan, RowEncoder encoder, boolean replace) {
      this.plan = plan;
      this.encoder = encoder;
      this.replace = replace;
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
      return new PartitionWriter(plan, encoder, replace, partitionId);
    }
  }
}
