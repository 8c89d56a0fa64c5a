package dev.sparksavepoint.store;

import dev.sparksavepoint.adapters.ListWrites;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.StateStore;

/**
 * Where the changes made to one store partition go, chosen once when the partition opens
 * ({@link StatePartition}): Spark's writable store ({@link #into}), a dry run's recorder
 * ({@link DryRun}) or a transaction statement's stager ({@link StagedEdits}). Keys and values
 * are the rows Spark encodes them to.
 */
interface PartitionSink {
  /** Puts {@code value} under {@code key} in column family {@code cf}. */
  void put(UnsafeRow key, UnsafeRow value, String cf);

  /** Appends {@code values} to the list under {@code key} (ListState.appendValue/appendList). */
  void append(UnsafeRow key, List<UnsafeRow> values, String cf);

  /** Sets the list under {@code key} to exactly {@code values} (ListState.put). */
  void putList(UnsafeRow key, List<UnsafeRow> values, String cf);

  void remove(UnsafeRow key, String cf);

  /** Drops what was not committed or recorded for good. */
  void abort();

  /** The sink of a partition opened for writing: Spark's store itself. */
  static PartitionSink into(StateStore store) {
    return new PartitionSink() {
      @Override
      public void put(UnsafeRow key, UnsafeRow value, String cf) {
        store.put(key, value, cf);
      }

      @Override
      public void append(UnsafeRow key, List<UnsafeRow> values, String cf) {
        ListWrites.append(store, key, values, cf);
      }

      @Override
      public void putList(UnsafeRow key, List<UnsafeRow> values, String cf) {
        ListWrites.replace(store, key, values, cf);
      }

      @Override
      public void remove(UnsafeRow key, String cf) {
        store.remove(key, cf);
      }

      @Override
      public void abort() {
        if (!store.hasCommitted()) store.abort();
      }
    };
  }

  /** A sink that records instead of writing: ends with what it recorded. */
  interface Recording extends PartitionSink {
    /** What was recorded, for store partition {@code partition}. */
    PlannedChanges end(int partition);
  }
}
