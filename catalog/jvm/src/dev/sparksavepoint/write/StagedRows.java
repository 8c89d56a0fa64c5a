package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.read.RowOverlay;
import dev.sparksavepoint.store.StagedFiles;
import dev.sparksavepoint.store.StatePartition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructType;

/**
 * A table as a later statement of an edit transaction reads it: the rows of batch N that Spark's
 * reader returns, except those the transaction's earlier statements changed, then what those
 * statements left of them. In each read task whose store partition has staged changes, the
 * partition is opened read-only with the changes replayed over it ({@link StagedFiles}); the
 * units they changed ({@link StateEdits#unitOf}: an entry, or every row of a grouping key of a
 * list) are dropped from the stored rows, and their entries now are decoded to flat rows by the
 * inverse of the table's write encoding ({@link RowEncoder#decoder}).
 *
 * @param plan the plan of a statement that edited the table (its stores, kind and batch N)
 * @param encoder the table's encoder, reading rows of the table's own columns
 * @param staged every change the transaction staged so far
 */
public record StagedRows(WritePlan plan, RowEncoder encoder, StagedFiles staged)
    implements RowOverlay {

  /**
   * The overlay of {@code plan}'s table of columns {@code schema}; null when its rows cannot be
   * decoded from the stores (columns other than those its writes take).
   */
  static StagedRows of(SparkSession spark, WritePlan plan, StructType schema, StagedFiles staged) {
    String zone = spark.sessionState().conf().sessionLocalTimeZone();
    try {
      RowEncoder encoder = RowEncoder.create(plan, schema, schema, zone);
      if (encoder.columns() != schema.size()) return null;
      String family = plan.editedFamily();
      encoder.decoder(plan.edited().keySchema(family), plan.edited().valueSchema(family), false);
      return new StagedRows(plan, encoder, staged);
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  public PartitionReader<InternalRow> over(
      PartitionReader<InternalRow> stored, InputPartition input, boolean withPartition) {
    int partition = statePartition(input);
    boolean changed = false;
    for (StoreSpec spec : plan.editedStores()) changed |= !staged.of(spec, partition).isEmpty();
    if (!changed) return stored;
    List<InternalRow> current = new ArrayList<>();
    Set<UnsafeRow> units = new HashSet<>();
    StateEdits edits = StateEdits.of(plan);
    read(edits, partition, withPartition, units, current);
    RowEncoder.Bound bound = encoder.bind();
    return new PartitionReader<>() {
      private int next = -1;
      private InternalRow row;

      @Override
      public boolean next() throws IOException {
        if (next < 0) {
          while (stored.next()) {
            row = stored.get();
            if (!units.contains(edits.unitOf(bound, row))) return true;
          }
        }
        row = ++next < current.size() ? current.get(next) : null;
        return row != null;
      }

      @Override
      public InternalRow get() {
        return row;
      }

      @Override
      public void close() throws IOException {
        stored.close();
      }
    };
  }

  /**
   * Collects the units the staged changes touch in {@code partition} into {@code units}, and
   * the flat rows they hold now into {@code rows}.
   */
  private void read(
      StateEdits edits,
      int partition,
      boolean withPartition,
      Set<UnsafeRow> units,
      List<InternalRow> rows) {
    StoreSpec spec = plan.edited();
    String family = plan.editedFamily();
    UnsafeProjection decoder =
        encoder.decoder(spec.keySchema(family), spec.valueSchema(family), withPartition);
    try (StatePartition store = open(spec, partition);
        StatePartition counts =
            plan.joinCounts() == null ? null : open(plan.joinCounts(), partition)) {
      if (counts != null) edits.attach(counts);
      Collection<UnsafeRow> changed = edits.changedUnits(store);
      for (UnsafeRow unit : changed) {
        units.add(unit.copy());
        edits.entries(
            store,
            unit,
            (key, value) ->
                rows.add(
                    decoder
                        .apply(new GenericInternalRow(new Object[] {key, value, partition}))
                        .copy()));
      }
      store.abort();
      if (counts != null) counts.abort();
    }
  }

  private StatePartition open(StoreSpec spec, int partition) {
    return StatePartition.openReadOnly(plan, spec, partition, "", null, staged);
  }

  /**
   * The state partition a task of the state reader reads: its input partition's public
   * {@code partition()} (Spark's {@code StateStoreInputPartition} on 4.0 to 4.3, the tool's own
   * reader's on 3.5). Its place among the tasks is not it: the reader lists the partition
   * folders in no set order.
   */
  private static int statePartition(InputPartition input) {
    try {
      return (Integer) input.getClass().getMethod("partition").invoke(input);
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalStateException(
          "[SAVEPOINT_INTERNAL] Spark's state reader gave a task "
              + input.getClass().getName()
              + ", which names no state partition",
          e);
    }
  }
}
