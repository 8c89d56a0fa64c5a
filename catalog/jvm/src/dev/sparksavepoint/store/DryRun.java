package dev.sparksavepoint.store;

import dev.sparksavepoint.checkpoint.StoreSpec;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.types.StructType;

/**
 * The changes an edit would make to one store partition, recorded instead of written (a
 * partition opened by {@link StatePartition#openDryRun}). It counts the entries of the edited
 * column family (the others are Spark's bookkeeping, such as list counters and timer indexes)
 * that would be added (the key holds nothing yet), changed and removed, and keeps the first
 * {@link PlannedChanges#SAMPLES} as {@code key: before -> after}, e.g.
 * {@code [alice]: [2,17] -> [100,1000]}.
 */
final class DryRun implements PartitionSink.Recording {
  private final StoreSpec spec;
  private final String family;

  /** The store read (released when the recording ends). */
  private final ReadStateStore reads;

  /** The state the changes are recorded against: {@link #reads}, maybe with staged changes. */
  private final StateReads view;

  private long added;
  private long changed;
  private long removed;
  private final List<String> samples = new ArrayList<>();

  DryRun(StoreSpec spec, String family, ReadStateStore reads, StateReads view) {
    this.spec = spec;
    this.family = family;
    this.reads = reads;
    this.view = view;
  }

  /** A put of {@code value} under {@code key}. */
  @Override
  public void put(UnsafeRow key, UnsafeRow value, String cf) {
    if (!cf.equals(family)) return;
    UnsafeRow before = view.get(key, cf);
    count(before == null, key, before == null ? null : render(before, cf), render(value, cf));
  }

  /** Elements appended to the list under {@code key}. */
  @Override
  public void append(UnsafeRow key, List<UnsafeRow> values, String cf) {
    if (!cf.equals(family)) return;
    List<UnsafeRow> before = view.values(key, cf);
    List<UnsafeRow> after = new ArrayList<>(before);
    after.addAll(values);
    count(before.isEmpty(), key, before.isEmpty() ? null : render(before, cf), render(after, cf));
  }

  /** The list under {@code key} set to exactly {@code values}. */
  @Override
  public void putList(UnsafeRow key, List<UnsafeRow> values, String cf) {
    if (!cf.equals(family)) return;
    List<UnsafeRow> before = view.values(key, cf);
    count(before.isEmpty(), key, before.isEmpty() ? null : render(before, cf), render(values, cf));
  }

  /** The removal of {@code key}. */
  @Override
  public void remove(UnsafeRow key, String cf) {
    if (!cf.equals(family)) return;
    removed++;
    boolean multi = spec.families() != null && spec.families().isMultiValued(cf);
    UnsafeRow before = multi ? null : view.get(key, cf);
    sample(key, cf, multi ? render(view.values(key, cf), cf) : render(before, cf), null);
  }

  @Override
  public void abort() {
    reads.abort();
  }

  @Override
  public PlannedChanges end(int partition) {
    return changes(partition, null);
  }

  /** What was recorded, for store partition {@code partition}; {@code stagedFile} or null. */
  PlannedChanges changes(int partition, String stagedFile) {
    reads.abort();
    return new PlannedChanges(
        spec.operatorId(),
        spec.storeName(),
        partition,
        added,
        changed,
        removed,
        List.copyOf(samples),
        stagedFile);
  }

  private void count(boolean isNew, UnsafeRow key, String before, String after) {
    if (isNew) added++;
    else changed++;
    sample(key, family, before, after);
  }

  private void sample(UnsafeRow key, String cf, String before, String after) {
    if (samples.size() >= PlannedChanges.SAMPLES) return;
    samples.add(
        render(key, spec.keySchema(cf))
            + ": "
            + (before == null ? "(none)" : before)
            + " -> "
            + (after == null ? "(removed)" : after));
  }

  private String render(UnsafeRow value, String cf) {
    return value == null ? null : render(value, spec.valueSchema(cf));
  }

  private String render(List<UnsafeRow> values, String cf) {
    List<String> parts = new ArrayList<>();
    for (UnsafeRow v : values) parts.add(render(v, cf));
    return parts.toString();
  }

  private static String render(UnsafeRow row, StructType schema) {
    return String.valueOf(CatalystTypeConverters.createToScalaConverter(schema).apply(row));
  }
}
