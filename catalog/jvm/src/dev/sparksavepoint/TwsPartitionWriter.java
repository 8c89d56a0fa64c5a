package dev.sparksavepoint;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.LongType$;

/**
 * The task side of a write to a transformWithState table: the rows of one state partition are
 * checked (no NULL key, no key twice, right partition) and written into version N+1 of the
 * operator's store through Spark's state store API, doing what the state variable
 * implementations do:
 *
 * <ul>
 *   <li>value and map: {@code put} per key (upsert); a replace also removes the keys it was not
 *       given;
 *   <li>list: an upsert appends the given elements ({@code mergeList}) and raises the row
 *       counter; a replace sets each given user's list to exactly the given elements
 *       ({@code putList}, counter = their number) and clears the lists of users not given
 *       ({@code remove} of list and counter). Elements keep the order of the incoming rows;
 *   <li>timers: registering puts both indexes, removing removes both.
 * </ul>
 * {@link #commit} commits version N+2 with every column family carried along.
 */
final class TwsPartitionWriter implements DataWriter<InternalRow> {
  private static final UnsafeRow EMPTY = TwsRowEncoder.emptyRow();

  private final WritePlan plan;
  private final TwsVariable variable;
  private final int partition;
  private final boolean replace;
  private final TwsRowEncoder encoder;
  private final TwsRowEncoder.Bound bound;
  private final Set<UnsafeRow> seen = new HashSet<>();
  private final Map<UnsafeRow, List<UnsafeRow>> lists = new LinkedHashMap<>();
  private final StatePartition store;

  TwsPartitionWriter(WritePlan plan, TwsRowEncoder encoder, boolean replace, int partition) {
    this.plan = plan;
    this.variable = plan.variable();
    this.partition = partition;
    this.replace = replace;
    this.encoder = encoder;
    this.bound = encoder.bind();
    this.store = StatePartition.open(plan, plan.edited(), partition);
  }

  @Override
  public void write(InternalRow row) {
    String nullColumn = bound.nullKeyColumn(row, encoder.sources());
    if (nullColumn != null) {
      throw Errors.nullKey(plan.checkpoint(), plan.uid(), plan.state(), nullColumn);
    }
    int expected = bound.partition(row);
    if (expected != partition) {
      throw Errors.wrongPartition(plan.checkpoint(), plan.uid(), plan.state(), describe(row),
          expected, partition);
    }
    String family = variable.family();
    switch (variable.kind()) {
      case LIST -> lists.computeIfAbsent(bound.groupingKey(row).copy(), k -> new ArrayList<>())
          .add(bound.value(row).copy());
      case TIMERS -> {
        UnsafeRow key = firstTime(bound.entryKey(row), row);
        if (store.get(key, family) == null) { // as TimerStateImpl.registerTimer
          store.put(key, EMPTY, family);
          store.put(bound.secondaryKey(row).copy(), EMPTY, variable.secondFamily());
        }
      }
      default -> {
        UnsafeRow key = firstTime(bound.entryKey(row), row);
        UnsafeRow value = bound.value(row).copy();
        UnsafeRow old = store.get(key, family);
        if (old == null || !old.equals(value)) store.put(key, value, family);
      }
    }
  }

  /** A copy of {@code key}, refused when the statement gave it before. */
  private UnsafeRow firstTime(UnsafeRow key, InternalRow row) {
    UnsafeRow stored = key.copy();
    if (!seen.add(stored)) {
      throw Errors.duplicateKey(plan.checkpoint(), plan.uid(), plan.state(), describe(row));
    }
    return stored;
  }

  private String describe(InternalRow row) {
    return bound.describe(row, encoder.sources(), encoder.given());
  }

  @Override
  public WriterCommitMessage commit() {
    switch (variable.kind()) {
      case LIST -> writeLists();
      case TIMERS -> {
        if (replace) removeTimersBut(store, variable, bound::secondaryOf, seen);
      }
      default -> {
        if (replace) {
          for (UnsafeRow key : store.keys(variable.family())) {
            if (!seen.contains(key)) store.remove(key, variable.family());
          }
        }
      }
    }
    return store.commit();
  }

  private void writeLists() {
    String family = variable.family();
    String counter = variable.secondFamily();
    UnsafeProjection count = UnsafeProjection.create(new DataType[] {LongType$.MODULE$});
    for (Map.Entry<UnsafeRow, List<UnsafeRow>> e : lists.entrySet()) {
      UnsafeRow key = e.getKey();
      List<UnsafeRow> elements = e.getValue();
      if (replace) {
        if (store.values(key, family).equals(elements)) continue;
        store.putList(key, elements, family); // as ListStateImpl.put
        store.put(key, countRow(count, elements.size()), counter);
      } else {
        UnsafeRow old = store.get(key, counter); // as ListStateImpl.appendList
        long before = old == null ? 0L : old.getLong(0);
        store.mergeList(key, elements, family);
        store.put(key, countRow(count, before + elements.size()), counter);
      }
    }
    if (replace) {
      for (UnsafeRow key : store.keys(family)) {
        if (!lists.containsKey(key)) clearList(store, variable, key);
      }
    }
  }

  private static UnsafeRow countRow(UnsafeProjection count, long n) {
    org.apache.spark.sql.catalyst.expressions.GenericInternalRow row =
        new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(1);
    row.setLong(0, n);
    return count.apply(row).copy();
  }

  /** As ListStateImpl.clear: removes the list and its row counter. */
  private static void clearList(StatePartition store, TwsVariable variable, UnsafeRow key) {
    store.remove(key, variable.family());
    store.remove(key, variable.secondFamily());
  }

  /** Removes every timer not in {@code keep} from both indexes (as deleteTimer). */
  private static void removeTimersBut(StatePartition store, TwsVariable variable,
      java.util.function.Function<UnsafeRow, UnsafeRow> inverse, Set<UnsafeRow> keep) {
    for (UnsafeRow key : store.keys(variable.family())) {
      if (keep.contains(key)) continue;
      store.remove(key, variable.family());
      store.remove(inverse.apply(key).copy(), variable.secondFamily());
    }
  }

  /**
   * Empties the variable in a partition the statement gave no rows for (a replace): every list,
   * map entry, value or timer of this partition, with the same bookkeeping as above.
   */
  static void clear(WritePlan plan, StatePartition store) {
    TwsVariable variable = plan.variable();
    switch (variable.kind()) {
      case LIST -> {
        for (UnsafeRow key : store.keys(variable.family())) clearList(store, variable, key);
      }
      case TIMERS -> removeTimersBut(store, variable,
          TwsRowEncoder.timerInverse(variable.groupingKey())::apply, Set.of());
      default -> {
        for (UnsafeRow key : store.keys(variable.family())) store.remove(key, variable.family());
      }
    }
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
    private final TwsRowEncoder encoder;
    private final boolean replace;

    Factory(WritePlan plan, TwsRowEncoder encoder, boolean replace) {
      this.plan = plan;
      this.encoder = encoder;
      this.replace = replace;
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
      return new TwsPartitionWriter(plan, encoder, replace, partitionId);
    }
  }
}
