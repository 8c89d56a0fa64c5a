package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.TwsVariable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.LongType$;
import org.apache.spark.sql.types.NullType$;
import org.apache.spark.sql.types.StructType;

/**
 * How one kind of state applies a statement's rows to one partition of its store, doing what
 * Spark's own operators and state variable implementations do (the strategy of
 * {@link PartitionWriter}; a new instance per partition):
 *
 * <ul>
 *   <li>{@link KeyValues}: one entry per key in one column family (the stores of aggregation,
 *       dedup and groupstate; transformWithState value and map variables): {@code put} when the
 *       value changed; a replace removes the keys it was not given;
 *   <li>{@link Lists}: an upsert appends the given elements ({@code mergeList}) and raises the
 *       row counter; a replace sets each given key's list to exactly the given elements
 *       ({@code putList}, counter = their number) and clears the lists of keys not given
 *       ({@code remove} of list and counter). Elements keep the order of the incoming rows;
 *   <li>{@link Timers}: registering puts both indexes, removing removes both.
 * </ul>
 */
abstract class StateEdits {
  /** The edits of {@code plan}'s state. */
  static StateEdits of(WritePlan plan) {
    TwsVariable variable = plan.variable();
    if (variable == null) return new KeyValues(StateStore.DEFAULT_COL_FAMILY_NAME());
    return switch (variable.kind()) {
      case LIST -> new Lists(variable);
      case TIMERS -> new Timers(variable);
      default -> new KeyValues(variable.family());
    };
  }

  /** The key no other row of the statement may give, or null when keys repeat (list rows). */
  abstract UnsafeRow uniqueKey(RowEncoder.Bound encoder, InternalRow row);

  /** Applies one row; {@code key} is its copied {@link #uniqueKey}. */
  abstract void apply(StatePartition store, RowEncoder.Bound encoder, InternalRow row,
      UnsafeRow key);

  /**
   * Before the commit: a replace removes what the statement did not give ({@code given}: the
   * unique keys it gave). With no rows given, a replace empties the partition.
   */
  abstract void finish(StatePartition store, boolean replace, Set<UnsafeRow> given);

  /** One entry per key in one column family. */
  static final class KeyValues extends StateEdits {
    private final String family;

    KeyValues(String family) {
      this.family = family;
    }

    @Override
    UnsafeRow uniqueKey(RowEncoder.Bound encoder, InternalRow row) {
      return encoder.entryKey(row);
    }

    @Override
    void apply(StatePartition store, RowEncoder.Bound encoder, InternalRow row, UnsafeRow key) {
      store.upsert(key, encoder.value(row).copy(), family);
    }

    @Override
    void finish(StatePartition store, boolean replace, Set<UnsafeRow> given) {
      if (replace) store.removeAllBut(given, family);
    }
  }

  /** A ListState variable and its row counter ({@code $rowCounter_<name>}). */
  static final class Lists extends StateEdits {
    private final String family;
    private final String counter;
    private final Map<UnsafeRow, List<UnsafeRow>> lists = new LinkedHashMap<>();
    private final UnsafeProjection count = UnsafeProjection.create(
        new DataType[] {LongType$.MODULE$});

    Lists(TwsVariable variable) {
      this.family = variable.family();
      this.counter = variable.secondFamily();
    }

    @Override
    UnsafeRow uniqueKey(RowEncoder.Bound encoder, InternalRow row) {
      return null;
    }

    @Override
    void apply(StatePartition store, RowEncoder.Bound encoder, InternalRow row, UnsafeRow key) {
      lists.computeIfAbsent(encoder.groupingKey(row).copy(), k -> new ArrayList<>())
          .add(encoder.value(row).copy());
    }

    @Override
    void finish(StatePartition store, boolean replace, Set<UnsafeRow> given) {
      for (Map.Entry<UnsafeRow, List<UnsafeRow>> e : lists.entrySet()) {
        if (replace) {
          put(store, e.getKey(), e.getValue());
        } else {
          append(store, e.getKey(), e.getValue());
        }
      }
      if (!replace) return;
      for (UnsafeRow key : store.keys(family)) {
        if (!lists.containsKey(key)) { // as ListStateImpl.clear
          store.remove(key, family);
          store.remove(key, counter);
        }
      }
    }

    /** As ListStateImpl.put. */
    private void put(StatePartition store, UnsafeRow key, List<UnsafeRow> elements) {
      if (store.values(key, family).equals(elements)) return;
      store.putList(key, elements, family);
      store.put(key, countRow(elements.size()), counter);
    }

    /** As ListStateImpl.appendList. */
    private void append(StatePartition store, UnsafeRow key, List<UnsafeRow> elements) {
      UnsafeRow old = store.get(key, counter);
      long before = old == null ? 0L : old.getLong(0);
      store.mergeList(key, elements, family);
      store.put(key, countRow(before + elements.size()), counter);
    }

    private UnsafeRow countRow(long n) {
      GenericInternalRow row = new GenericInternalRow(1);
      row.setLong(0, n);
      return count.apply(row).copy();
    }
  }

  /** The timers: the key-to-timestamp index and its inverse, both with an empty value. */
  static final class Timers extends StateEdits {
    /** An empty-value row as TimerStateImpl writes it: one NULL field of type void. */
    private static final UnsafeRow EMPTY = UnsafeProjection.create(
        new DataType[] {NullType$.MODULE$}).apply(new GenericInternalRow(1)).copy();

    private final String family;
    private final String inverseFamily;
    /** From {@code struct<key, expiryTimestampMs>} to {@code struct<expiryTimestampMs, key>}. */
    private final UnsafeProjection inverse;

    Timers(TwsVariable variable) {
      this.family = variable.family();
      this.inverseFamily = variable.secondFamily();
      StructType key = variable.groupingKey();
      this.inverse = RowEncoder.project(List.of(new BoundReference(1, LongType$.MODULE$, false),
          new BoundReference(0, key, true)));
    }

    @Override
    UnsafeRow uniqueKey(RowEncoder.Bound encoder, InternalRow row) {
      return encoder.entryKey(row);
    }

    @Override
    void apply(StatePartition store, RowEncoder.Bound encoder, InternalRow row, UnsafeRow key) {
      if (store.get(key, family) == null) { // as TimerStateImpl.registerTimer
        store.put(key, EMPTY, family);
        store.put(encoder.secondaryKey(row).copy(), EMPTY, inverseFamily);
      }
    }

    @Override
    void finish(StatePartition store, boolean replace, Set<UnsafeRow> given) {
      if (!replace) return;
      for (UnsafeRow key : store.keys(family)) { // as deleteTimer
        if (given.contains(key)) continue;
        store.remove(key, family);
        store.remove(inverse.apply(key).copy(), inverseFamily);
      }
    }
  }
}
