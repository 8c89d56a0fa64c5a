package dev.sparksavepoint.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;

/**
 * The state a later statement of an edit transaction reads: one store partition as stored
 * (version N+1) with the changes the transaction's earlier statements staged for it
 * ({@link StagedEdits}) replayed over it in memory, in their order, exactly as the commit will
 * replay them onto the store. Holds only the changed keys; every other read goes to the store.
 */
final class StagedState implements StateReads, StagedEdits.Target {
  /** What the earlier statements left under one key of one family. */
  private sealed interface Entry permits Removed, Value, Values {}

  private record Removed() implements Entry {}

  private record Value(UnsafeRow row) implements Entry {}

  /** A list: the stored elements first when {@code stored}, then {@code added}. */
  private record Values(boolean stored, List<UnsafeRow> added) implements Entry {}

  private static final Removed REMOVED = new Removed();

  private final StateReads stored;
  private final Map<String, Map<UnsafeRow, Entry>> families = new HashMap<>();

  private StagedState(StateReads stored) {
    this.stored = stored;
  }

  /** {@code stored} with the changes staged in {@code files} (in statement order) over it. */
  static StateReads over(StateReads stored, List<String> files, Configuration conf) {
    return files.isEmpty() ? stored : replayed(stored, files, conf);
  }

  /**
   * The net changes staged in {@code files} (in statement order): each changed key once, as
   * the last statement left it.
   */
  static StagedState of(List<String> files, Configuration conf) {
    return replayed(null, files, conf);
  }

  private static StagedState replayed(StateReads stored, List<String> files, Configuration conf) {
    StagedState state = new StagedState(stored);
    for (String file : files) StagedEdits.replay(file, conf, state);
    return state;
  }

  /** Applies the net changes to {@code store}: one change per changed key. */
  void applyTo(StagedEdits.Target store) {
    for (Map.Entry<String, Map<UnsafeRow, Entry>> family : families.entrySet()) {
      String cf = family.getKey();
      for (Map.Entry<UnsafeRow, Entry> e : family.getValue().entrySet()) {
        UnsafeRow key = e.getKey();
        if (e.getValue() instanceof Value v) {
          store.put(key, v.row(), cf);
        } else if (!(e.getValue() instanceof Values list)) {
          store.remove(key, cf);
        } else if (list.stored()) {
          store.mergeList(key, list.added(), cf);
        } else if (list.added().isEmpty()) {
          store.remove(key, cf);
        } else {
          store.putList(key, list.added(), cf);
        }
      }
    }
  }

  private Map<UnsafeRow, Entry> family(String cf) {
    return families.computeIfAbsent(cf, k -> new LinkedHashMap<>());
  }

  @Override
  public void put(UnsafeRow key, UnsafeRow value, String cf) {
    family(cf).put(key, new Value(value));
  }

  @Override
  public void remove(UnsafeRow key, String cf) {
    family(cf).put(key, REMOVED);
  }

  @Override
  public void mergeList(UnsafeRow key, List<UnsafeRow> values, String cf) {
    Entry before = family(cf).get(key);
    List<UnsafeRow> added = new ArrayList<>();
    boolean fromStore = before == null;
    if (before instanceof Values list) {
      fromStore = list.stored();
      added.addAll(list.added());
    }
    added.addAll(values);
    family(cf).put(key, new Values(fromStore, added));
  }

  @Override
  public void putList(UnsafeRow key, List<UnsafeRow> values, String cf) {
    family(cf).put(key, new Values(false, List.copyOf(values)));
  }

  private Entry entry(UnsafeRow key, String cf) {
    Map<UnsafeRow, Entry> entries = families.get(cf);
    return entries == null ? null : entries.get(key);
  }

  @Override
  public UnsafeRow get(UnsafeRow key, String cf) {
    Entry e = entry(key, cf);
    if (e == null) return stored.get(key, cf);
    return e instanceof Value v ? v.row() : null;
  }

  @Override
  public List<UnsafeRow> values(UnsafeRow key, String cf) {
    Entry e = entry(key, cf);
    if (e == null) return stored.values(key, cf);
    if (e instanceof Value v) return List.of(v.row());
    if (!(e instanceof Values list)) return List.of();
    List<UnsafeRow> out = list.stored() ? stored.values(key, cf) : new ArrayList<>();
    out.addAll(list.added());
    return out;
  }

  @Override
  public List<UnsafeRow> keys(String cf) {
    Map<UnsafeRow, Entry> entries = families.getOrDefault(cf, Map.of());
    Set<UnsafeRow> keys = new LinkedHashSet<>();
    for (UnsafeRow key : stored.keys(cf)) {
      if (!entries.containsKey(key)) keys.add(key);
    }
    for (Map.Entry<UnsafeRow, Entry> e : entries.entrySet()) {
      if (holds(e.getKey(), e.getValue(), cf)) keys.add(e.getKey());
    }
    return new ArrayList<>(keys);
  }

  private boolean holds(UnsafeRow key, Entry e, String cf) {
    if (e instanceof Value) return true;
    if (!(e instanceof Values list)) return false;
    return !list.added().isEmpty() || (list.stored() && !stored.values(key, cf).isEmpty());
  }

  @Override
  public List<UnsafeRow> changedKeys(String cf) {
    return new ArrayList<>(families.getOrDefault(cf, Map.of()).keySet());
  }
}
