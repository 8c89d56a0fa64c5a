package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.checkpoint.TwsVariable;
import dev.sparksavepoint.store.StatePartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
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
    if (plan.joinCounts() != null) return new JoinSide(plan.edited());
    TwsVariable variable = plan.variable();
    if (variable == null) return new KeyValues(StateStore.DEFAULT_COL_FAMILY_NAME());
    return switch (variable.kind()) {
      case LIST -> variable.hasTtl() ? new ExpiringLists(variable, plan) : new Lists(variable);
      case TIMERS -> new Timers(variable);
      default ->
          variable.hasTtl()
              ? new ExpiringKeyValues(variable, plan)
              : new KeyValues(variable.family());
    };
  }

  /**
   * How a replace empties a partition of {@code spec}, one of {@code plan}'s edited stores that
   * got no rows: as {@link #of}, or for a join side's stores each on its own (all its keys go).
   */
  static StateEdits clearing(WritePlan plan) {
    return plan.joinCounts() != null
        ? new KeyValues(StateStore.DEFAULT_COL_FAMILY_NAME())
        : of(plan);
  }

  /** Empties {@code store}, a partition of one of {@code plan}'s edited stores that got no rows. */
  static void empty(WritePlan plan, StatePartition store) {
    StateEdits clearing = clearing(plan);
    clearing.finish(store, true, UngivenKeys.none(store, clearing.family()));
  }

  /** The second store a kind keeps consistent with the edited one (a join side's counts). */
  void attach(StatePartition second) {
    throw new IllegalStateException(
        "[SAVEPOINT_INTERNAL] " + getClass().getSimpleName() + " edits one store");
  }

  /**
   * What a flat row of the table belongs to, as an edit changes it: its entry (the entry's
   * key), or for kinds whose keys repeat every row of its grouping key.
   */
  final UnsafeRow unitOf(RowEncoder.Bound encoder, InternalRow row) {
    UnsafeRow key = uniqueKey(encoder, row);
    return key != null ? key : encoder.groupingKey(row);
  }

  /** The column family whose entries are the table's rows. */
  abstract String family();

  /** The units ({@link #unitOf}) a transaction's earlier statements changed in {@code store}. */
  Collection<UnsafeRow> changedUnits(StatePartition store) {
    return store.changedKeys(family());
  }

  /**
   * Calls {@code entry} with each (key, value) of the edited family {@code unit} holds now: one
   * entry per unit here.
   */
  void entries(StatePartition store, UnsafeRow unit, BiConsumer<UnsafeRow, UnsafeRow> entry) {
    UnsafeRow value = store.get(unit, family());
    if (value != null) entry.accept(unit, value);
  }

  /** The key no other row of the statement may give, or null when keys repeat (list rows). */
  abstract UnsafeRow uniqueKey(RowEncoder.Bound encoder, InternalRow row);

  /** Applies one row; {@code key} is its copied {@link #uniqueKey}. */
  abstract void apply(
      StatePartition store, RowEncoder.Bound encoder, InternalRow row, UnsafeRow key);

  /**
   * Before the commit: a replace removes what the statement did not give ({@code ungiven}
   * finds the stored keys it did not give, for kinds with a {@link #uniqueKey}). With no rows
   * given, a replace empties the partition.
   */
  void finish(StatePartition store, boolean replace, UngivenKeys ungiven) {
    if (replace) ungiven.rest(key -> drop(store, key));
  }

  /**
   * How a replace of {@code store} finds the stored keys it was not given: by sorting them
   * where the kind's rows arrive in key order and nothing is staged ({@link KeyValues} of a
   * plain write), else by remembering the given keys.
   */
  UngivenKeys ungiven(StatePartition store, WritePlan plan) {
    return UngivenKeys.remembered(store, family());
  }

  /** Removes a stored unit a replace was not given (kinds with a {@link #uniqueKey}). */
  void drop(StatePartition store, UnsafeRow key) {
    throw new IllegalStateException(
        "[SAVEPOINT_INTERNAL] " + getClass().getSimpleName() + " has no unique keys to drop");
  }

  /** The empty value of Spark's index families (timers, TTL): one NULL field of type void. */
  static final UnsafeRow EMPTY =
      UnsafeProjection.create(new DataType[] {NullType$.MODULE$})
          .apply(new GenericInternalRow(1))
          .copy();

  private UnsafeProjection longs;

  /** A one-long row (counters, the smallest expiration, a join row's index). */
  final UnsafeRow longRow(long n) {
    if (longs == null) longs = UnsafeProjection.create(new DataType[] {LongType$.MODULE$});
    GenericInternalRow row = new GenericInternalRow(1);
    row.setLong(0, n);
    return longs.apply(row).copy();
  }

  /**
   * The key of a TTL index entry, {@code struct<expirationMs, elementKey>}, for element keys
   * of type {@code elementKey}.
   */
  static final class TtlIndexKey {
    private final UnsafeProjection project;

    TtlIndexKey(StructType elementKey) {
      this.project =
          RowEncoder.project(
              List.of(
                  new BoundReference(0, LongType$.MODULE$, true),
                  new BoundReference(1, elementKey, true)));
    }

    UnsafeRow of(long expirationMs, UnsafeRow elementKey) {
      GenericInternalRow row = new GenericInternalRow(2);
      row.setLong(0, expirationMs);
      row.update(1, elementKey);
      return project.apply(row).copy();
    }
  }

  /**
   * A kind whose keys repeat (a list per grouping key): the rows of a statement are collected
   * per grouping key, in their order, and applied in {@link #finish}.
   */
  abstract static class PerKeyRows extends StateEdits {
    final Map<UnsafeRow, List<UnsafeRow>> rows = new LinkedHashMap<>();

    @Override
    UnsafeRow uniqueKey(RowEncoder.Bound encoder, InternalRow row) {
      return null;
    }

    @Override
    void apply(StatePartition store, RowEncoder.Bound encoder, InternalRow row, UnsafeRow key) {
      rows.computeIfAbsent(encoder.groupingKey(row).copy(), k -> new ArrayList<>())
          .add(encoder.value(row).copy());
    }

    /**
     * Appends each key's rows (an upsert) or sets them exactly (a replace, which also clears
     * every stored key not given).
     */
    @Override
    final void finish(StatePartition store, boolean replace, UngivenKeys ungiven) {
      for (Map.Entry<UnsafeRow, List<UnsafeRow>> e : rows.entrySet()) {
        if (replace) {
          put(store, e.getKey(), e.getValue());
        } else {
          append(store, e.getKey(), e.getValue());
        }
      }
      if (!replace) return;
      for (UnsafeRow key : storedKeys(store)) {
        if (!rows.containsKey(key)) clear(store, key);
      }
    }

    /** Each element of the list under {@code unit}. */
    @Override
    void entries(StatePartition store, UnsafeRow unit, BiConsumer<UnsafeRow, UnsafeRow> entry) {
      for (UnsafeRow element : store.values(unit, family())) entry.accept(unit, element);
    }

    /** The key's rows set to exactly {@code elements}. */
    abstract void put(StatePartition store, UnsafeRow key, List<UnsafeRow> elements);

    /** {@code elements} appended to the key's rows. */
    abstract void append(StatePartition store, UnsafeRow key, List<UnsafeRow> elements);

    /** Every row of the key removed. */
    abstract void clear(StatePartition store, UnsafeRow key);

    /** Every grouping key the partition stores. */
    abstract List<UnsafeRow> storedKeys(StatePartition store);
  }

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
    void drop(StatePartition store, UnsafeRow key) {
      store.remove(key, family);
    }

    @Override
    UngivenKeys ungiven(StatePartition store, WritePlan plan) {
      return plan.readOnly()
          ? UngivenKeys.remembered(store, family)
          : UngivenKeys.sorted(store, family, plan.edited().keySchema(family));
    }

    @Override
    String family() {
      return family;
    }
  }

  /** A ListState variable and its row counter ({@code $rowCounter_<name>}). */
  static final class Lists extends PerKeyRows {
    private final String family;
    private final String counter;

    Lists(TwsVariable variable) {
      this.family = variable.family();
      this.counter = variable.secondFamily();
    }

    @Override
    List<UnsafeRow> storedKeys(StatePartition store) {
      return store.keys(family);
    }

    @Override
    String family() {
      return family;
    }

    /** As ListStateImpl.clear. */
    @Override
    void clear(StatePartition store, UnsafeRow key) {
      store.remove(key, family);
      store.remove(key, counter);
    }

    /** As ListStateImpl.put. */
    @Override
    void put(StatePartition store, UnsafeRow key, List<UnsafeRow> elements) {
      if (store.values(key, family).equals(elements)) return;
      store.putList(key, elements, family);
      store.put(key, longRow(elements.size()), counter);
    }

    /** As ListStateImpl.appendList. */
    @Override
    void append(StatePartition store, UnsafeRow key, List<UnsafeRow> elements) {
      UnsafeRow old = store.get(key, counter);
      long before = old == null ? 0L : old.getLong(0);
      store.mergeList(key, elements, family);
      store.put(key, longRow(before + elements.size()), counter);
    }
  }

  /** The timers: the key-to-timestamp index and its inverse, both with an empty value. */
  static final class Timers extends StateEdits {
    private final String family;
    private final String inverseFamily;

    /** From {@code struct<key, expiryTimestampMs>} to {@code struct<expiryTimestampMs, key>}. */
    private final UnsafeProjection inverse;

    Timers(TwsVariable variable) {
      this.family = variable.family();
      this.inverseFamily = variable.secondFamily();
      StructType key = variable.groupingKey();
      this.inverse =
          RowEncoder.project(
              List.of(
                  new BoundReference(1, LongType$.MODULE$, false),
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
    String family() {
      return family;
    }

    @Override
    void drop(StatePartition store, UnsafeRow key) { // as deleteTimer
      store.remove(key, family);
      store.remove(inverse.apply(key).copy(), inverseFamily);
    }
  }

  /**
   * A stream-stream join side, as Spark's {@code SymmetricHashJoinStateManager} keeps it: per
   * join key, the number of rows in {@code keyToNumValues} (the {@link #attach}ed store) and
   * the rows at indexes 0..n-1 in {@code keyWithIndexToValue} (the edited store). An upsert
   * appends the given rows after the key's rows (as arriving rows are appended); a replace sets
   * each given key's rows to exactly the given ones, keeping the {@code matched} flag of a row
   * that was there already (a new row is not matched yet), and removes the keys not given.
   */
  static final class JoinSide extends PerKeyRows {
    private static final String DEFAULT = StateStore.DEFAULT_COL_FAMILY_NAME();

    /** (join key fields, index) from a JoinedRow of the join key and a one-long row. */
    private final UnsafeProjection keyWithIndex;

    /** The join key fields of a (join key fields, index) row. */
    private final UnsafeProjection joinKey;

    /** The position of the {@code matched} flag in a stored row, or -1 (join format 1). */
    private final int matched;

    private StatePartition counts;

    JoinSide(StoreSpec values) {
      StructType key = values.keySchema();
      List<Expression> fields = new ArrayList<>();
      for (int i = 0; i < key.size(); i++) {
        fields.add(new BoundReference(i, key.fields()[i].dataType(), key.fields()[i].nullable()));
      }
      this.keyWithIndex = RowEncoder.project(fields);
      this.joinKey = RowEncoder.project(fields.subList(0, fields.size() - 1));
      StructType value = values.valueSchema();
      this.matched =
          value.size() > 0 && value.fields()[value.size() - 1].name().equals("matched")
              ? value.size() - 1
              : -1;
    }

    @Override
    void attach(StatePartition second) {
      this.counts = second;
    }

    @Override
    List<UnsafeRow> storedKeys(StatePartition store) {
      return counts.keys(DEFAULT);
    }

    @Override
    String family() {
      return DEFAULT;
    }

    /** The join keys whose count or rows changed. */
    @Override
    Collection<UnsafeRow> changedUnits(StatePartition store) {
      Set<UnsafeRow> keys = new LinkedHashSet<>(counts.changedKeys(DEFAULT));
      for (UnsafeRow indexed : store.changedKeys(DEFAULT)) keys.add(joinKey.apply(indexed).copy());
      return keys;
    }

    /** The key's rows at indexes 0..n-1, each under its (key, index). */
    @Override
    void entries(StatePartition store, UnsafeRow unit, BiConsumer<UnsafeRow, UnsafeRow> entry) {
      long n = numValues(unit);
      for (long i = 0; i < n; i++) {
        UnsafeRow key = indexed(unit, i);
        UnsafeRow row = store.get(key, DEFAULT);
        if (row != null) entry.accept(key, row);
      }
    }

    @Override
    void clear(StatePartition store, UnsafeRow key) {
      put(store, key, List.of());
    }

    /** As arriving rows: after the key's rows, the count raised. */
    @Override
    void append(StatePartition store, UnsafeRow key, List<UnsafeRow> added) {
      long n = numValues(key);
      for (int i = 0; i < added.size(); i++) {
        store.put(indexed(key, n + i), added.get(i), DEFAULT);
      }
      counts.put(key, longRow(n + added.size()), DEFAULT);
    }

    /** The key's rows set to exactly {@code given} (none: the key goes). */
    @Override
    void put(StatePartition store, UnsafeRow key, List<UnsafeRow> given) {
      long n = numValues(key);
      List<UnsafeRow> old = new ArrayList<>();
      for (long i = 0; i < n; i++) {
        UnsafeRow row = store.get(indexed(key, i), DEFAULT);
        old.add(row == null ? null : row.copy());
      }
      for (int i = 0; i < given.size(); i++) {
        store.upsert(indexed(key, i), keepMatched(given.get(i), old), DEFAULT);
      }
      for (long i = given.size(); i < n; i++) store.remove(indexed(key, i), DEFAULT);
      if (given.isEmpty()) {
        if (n > 0 || counts.get(key, DEFAULT) != null) counts.remove(key, DEFAULT);
      } else if (n != given.size()) {
        counts.put(key, longRow(given.size()), DEFAULT);
      }
    }

    /**
     * {@code row} (matched false) with the flag of an equal row among {@code old}, which it then
     * takes out of the running.
     */
    private UnsafeRow keepMatched(UnsafeRow row, List<UnsafeRow> old) {
      if (matched < 0) return row;
      for (int j = 0; j < old.size(); j++) {
        UnsafeRow candidate = old.get(j);
        if (candidate == null) continue;
        boolean flag = !candidate.isNullAt(matched) && candidate.getBoolean(matched);
        UnsafeRow unflagged = candidate.copy();
        unflagged.setBoolean(matched, false);
        if (unflagged.equals(row)) {
          old.set(j, null);
          UnsafeRow kept = row.copy();
          kept.setBoolean(matched, flag);
          return kept;
        }
      }
      return row;
    }

    private long numValues(UnsafeRow key) {
      UnsafeRow n = counts.get(key, DEFAULT);
      return n == null ? 0L : n.getLong(0);
    }

    private UnsafeRow indexed(UnsafeRow key, long index) {
      return keyWithIndex.apply(new JoinedRow(key, longRow(index))).copy();
    }
  }

  /**
   * A value or map variable with a TTL (Spark's OneToOneTTLState): each row ends in its
   * {@code ttlExpirationMs}, and the index family {@code $ttl_<name>} holds
   * {@code (expirationMs, elementKey)} for every stored key, which Spark's TTL clean-up scans.
   * A put moves the key's index entry when the expiration changes; a removal removes it.
   */
  static final class ExpiringKeyValues extends StateEdits {
    private final String family;
    private final String index;
    private final int expiration;
    private final TtlIndexKey indexKey;

    ExpiringKeyValues(TwsVariable variable, WritePlan plan) {
      this.family = variable.family();
      this.index = variable.secondFamily();
      this.expiration = (Integer) variable.value().getFieldIndex(TwsVariable.TTL_FIELD).get();
      StructType elementKey = plan.edited().keySchema(family);
      this.indexKey = new TtlIndexKey(elementKey);
    }

    @Override
    UnsafeRow uniqueKey(RowEncoder.Bound encoder, InternalRow row) {
      return encoder.entryKey(row);
    }

    @Override
    void apply(StatePartition store, RowEncoder.Bound encoder, InternalRow row, UnsafeRow key) {
      UnsafeRow value = encoder.value(row).copy();
      UnsafeRow old = store.get(key, family);
      if (old != null && old.equals(value)) return;
      Long before = old == null ? null : expirationOf(old);
      Long after = expirationOf(value);
      if (old == null || !java.util.Objects.equals(before, after)) {
        if (before != null) store.remove(indexKey.of(before, key), index);
        if (after != null) store.put(indexKey.of(after, key), EMPTY, index);
      }
      store.put(key, value, family);
    }

    @Override
    void drop(StatePartition store, UnsafeRow key) {
      UnsafeRow old = store.get(key, family);
      Long before = old == null ? null : expirationOf(old);
      store.remove(key, family);
      if (before != null) store.remove(indexKey.of(before, key), index);
    }

    private Long expirationOf(UnsafeRow value) {
      return value.isNullAt(expiration) ? null : value.getLong(expiration);
    }

    @Override
    String family() {
      return family;
    }
  }

  /**
   * A ListState variable with a TTL (Spark's ListStateImplWithTTL over OneToManyTTLState):
   * every element ends in its {@code ttlExpirationMs}; per grouping key {@code $count_<name>}
   * holds the number of elements, {@code $min_<name>} the smallest expiration, and the index
   * {@code $ttl_<name>} one {@code (smallest expiration, grouping key)} entry. An upsert
   * appends (the smallest expiration can only fall); a replace sets each given list exactly
   * and clears the lists not given, with their counts and index entries.
   */
  static final class ExpiringLists extends PerKeyRows {
    private final String family;
    private final String index;
    private final String min;
    private final String counts;
    private final int expiration;
    private final TtlIndexKey indexKey;

    ExpiringLists(TwsVariable variable, WritePlan plan) {
      this.family = variable.family();
      this.index = variable.secondFamily();
      this.min = TwsVariable.MIN_PREFIX + variable.name();
      this.counts = TwsVariable.COUNT_PREFIX + variable.name();
      this.expiration = (Integer) variable.value().getFieldIndex(TwsVariable.TTL_FIELD).get();
      this.indexKey = new TtlIndexKey(variable.groupingKey());
    }

    @Override
    List<UnsafeRow> storedKeys(StatePartition store) {
      return store.keys(family);
    }

    @Override
    String family() {
      return family;
    }

    /** As ListStateImplWithTTL.put. */
    @Override
    void put(StatePartition store, UnsafeRow key, List<UnsafeRow> elements) {
      if (!store.values(key, family).equals(elements)) write(store, key, elements, true);
    }

    /** As ListStateImplWithTTL.appendList. */
    @Override
    void append(StatePartition store, UnsafeRow key, List<UnsafeRow> elements) {
      write(store, key, elements, false);
    }

    /** As OneToManyTTLState.updatePrimaryAndSecondaryIndices. */
    private void write(
        StatePartition store, UnsafeRow key, List<UnsafeRow> elements, boolean overwrite) {
      UnsafeRow oldMin = store.get(key, min);
      UnsafeRow oldCount = overwrite ? null : store.get(key, counts);
      if (overwrite) {
        store.putList(key, elements, family);
      } else {
        store.mergeList(key, elements, family);
      }
      long before = oldCount == null ? 0L : oldCount.getLong(0);
      store.put(key, longRow(before + elements.size()), counts);
      long smallest = Long.MAX_VALUE;
      for (UnsafeRow element : elements) {
        smallest = Math.min(smallest, element.getLong(expiration));
      }
      if (oldMin == null) {
        store.put(key, longRow(smallest), min);
        store.put(indexKey.of(smallest, key), EMPTY, index);
      } else if (overwrite || smallest < oldMin.getLong(0)) {
        store.remove(indexKey.of(oldMin.getLong(0), key), index);
        store.put(key, longRow(smallest), min);
        store.put(indexKey.of(smallest, key), EMPTY, index);
      }
    }

    /** As OneToManyTTLState.clearAllStateForElementKey. */
    @Override
    void clear(StatePartition store, UnsafeRow key) {
      UnsafeRow oldMin = store.get(key, min);
      store.remove(key, family);
      store.remove(key, counts);
      if (oldMin != null) {
        store.remove(key, min);
        store.remove(indexKey.of(oldMin.getLong(0), key), index);
      }
    }
  }
}
