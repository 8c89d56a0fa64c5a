package dev.sparksavepoint;

import java.util.HashSet;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * The task side of a write: the rows of one state partition (Spark has shuffled them by key
 * exactly like the streaming query) are checked (no NULL key, no key twice, right partition)
 * and upserted into version N+1 of the edited store; a replace also removes the keys it was
 * not given. {@link #commit} commits version N+2; on any failure nothing of this partition is
 * committed.
 */
final class StatePartitionWriter implements DataWriter<InternalRow> {
  private final WritePlan plan;
  private final int partition;
  private final boolean replace;
  private final StateRowEncoder.Bound encoder;
  private final Set<UnsafeRow> seen = new HashSet<>();
  private final StatePartition store;

  StatePartitionWriter(WritePlan plan, StateRowEncoder encoder, boolean replace, int partition) {
    this.plan = plan;
    this.partition = partition;
    this.replace = replace;
    this.encoder = encoder.bind();
    this.store = StatePartition.open(plan, plan.edited(), partition);
  }

  @Override
  public void write(InternalRow row) {
    UnsafeRow key = encoder.key(row);
    int nullField = encoder.nullField(key);
    if (nullField >= 0) {
      throw Errors.nullKey(plan.checkpoint(), plan.uid(), plan.state(),
          plan.edited().keySchema().fields()[nullField].name());
    }
    int expected = encoder.partition(row);
    if (expected != partition) {
      throw Errors.wrongPartition(plan.checkpoint(), plan.uid(), plan.state(),
          encoder.describe(key), expected, partition);
    }
    UnsafeRow stored = key.copy();
    if (!seen.add(stored)) {
      throw Errors.duplicateKey(plan.checkpoint(), plan.uid(), plan.state(),
          encoder.describe(stored));
    }
    store.upsert(stored, encoder.value(row).copy());
  }

  @Override
  public WriterCommitMessage commit() {
    if (replace) store.removeAllBut(seen);
    return store.commit();
  }

  @Override
  public void abort() {
    store.abort();
  }

  @Override
  public void close() {
    store.close();
  }

  /** Serialized to the executors; one writer per state partition. */
  static final class Factory implements DataWriterFactory {
    private final WritePlan plan;
    private final StateRowEncoder encoder;
    private final boolean replace;

    Factory(WritePlan plan, StateRowEncoder encoder, boolean replace) {
      this.plan = plan;
      this.encoder = encoder;
      this.replace = replace;
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
      return new StatePartitionWriter(plan, encoder, replace, partitionId);
    }
  }
}
