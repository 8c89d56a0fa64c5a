package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.KeyHashes;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.store.StatePartition;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * The task side of a write: the rows of one state partition (Spark has shuffled them by key
 * exactly like the streaming query, and sorted them by entry key) are checked (no NULL key,
 * right partition, no key twice: a repeated key arrives right after its first row) and applied
 * to version N+1 of the edited store by the state kind's {@link StateEdits}; a replace also
 * removes what it was not given. {@link #commit} commits version N+2; on any
 * failure nothing of this partition is committed. In a dry run the partition is read-only and
 * {@link #commit} reports what it would have changed. A full-image replace
 * ({@link WritePlan#images}) puts every row into an empty store instead, committed as one image
 * of the partition: nothing is read, nothing compared, nothing removed (an HDFS-backed image
 * keeps none of its entries on the heap either, {@link dev.sparksavepoint.store.HdfsImageMap}).
 * An upsert into an HDFS-backed store holds its rows until the partition ends and then reads
 * only their keys' entries ({@link StatePartition#openFor}), not the whole partition; a replace
 * of one walks the partition's stored entries, streamed from its files and sorted, beside its
 * rows ({@link UngivenKeys#walked}).
 */
final class PartitionWriter implements DataWriter<InternalRow> {
  private final WritePlan plan;
  private final int partition;
  private final boolean replace;
  private final RowEncoder.Bound encoder;
  private final StateEdits edits;

  /**
   * For a replace: finds the stored keys it was not given, to remove them; null for an upsert
   * and a full image.
   */
  private final UngivenKeys ungiven;

  /** The unique key of the row before, to find a key given twice (rows sorted by it). */
  private UnsafeRow previous;

  /**
   * For a full image (rows unsorted): one bit per hash of the keys put so far. A key whose bit
   * is set is looked up in the image's store, which holds only what this task put.
   */
  private final long[] imageKeys;

  /**
   * For a full image into a store that keeps no entries (HDFS-backed,
   * {@link dev.sparksavepoint.store.HdfsImageMap}), which cannot look keys up: the hashes of the
   * keys put, checked when the partition ends.
   */
  private final KeyHashes imageHashes;

  /** The keys a full image got so far (each once). */
  private long imageRows;

  /** The edited store partition; null while {@link #held} holds the rows. */
  private StatePartition store;

  /**
   * An upsert into an HDFS-backed store: its rows, held until the partition ends, when only
   * their keys' entries are read ({@link StatePartition#openFor}), or until there are
   * {@link #HELD_ROWS}, when the partition is loaded whole and they are applied. Null for other
   * writes, and once the store is open.
   */
  private List<Held> held;

  /** One held row, with its copied key. */
  private record Held(UnsafeRow key, InternalRow row) {}

  /**
   * The most rows an upsert into an HDFS-backed store holds before loading the partition:
   * reading the partition's files for more keys would save little over loading it.
   */
  static final int HELD_ROWS = 10_000;

  /** A join side's {@code keyToNumValues} partition, kept consistent with {@link #store}. */
  private final StatePartition counts;

  PartitionWriter(WritePlan plan, RowEncoder encoder, boolean replace, int partition) {
    this.plan = plan;
    this.partition = partition;
    this.replace = replace;
    this.encoder = encoder.bind();
    this.edits = plan.images() == null ? StateEdits.of(plan) : null;
    this.held = hdfsKeyValues(plan, edits) && !replace ? new ArrayList<>() : null;
    StatePartition.Walked walked =
        hdfsKeyValues(plan, edits) && replace
            ? StatePartition.openWalked(plan, plan.edited(), partition)
            : null;
    this.store =
        plan.images() != null
            ? plan.images().open(plan, plan.edited(), partition)
            : walked != null
                ? walked.partition()
                : held != null ? null : open(plan, plan.edited(), partition, plan.editedFamily());
    boolean streamed = plan.images() != null && store.streamImage();
    this.imageHashes = streamed ? new KeyHashes() : null;
    this.imageKeys =
        plan.images() == null || streamed ? null : new long[IMAGE_KEY_BITS / Long.SIZE];
    StatePartition second = null;
    try {
      if (plan.joinCounts() != null) {
        second = open(plan, plan.joinCounts(), partition, COUNTED_NOWHERE);
        edits.attach(second);
      }
      String family = plan.editedFamily();
      this.ungiven =
          walked != null
              ? UngivenKeys.walked(
                  walked, plan.edited().keySchema(family), plan.edited().valueSchema(family))
              : replace && edits != null ? edits.ungiven(store, plan) : null;
    } catch (RuntimeException e) {
      for (StatePartition opened : new StatePartition[] {second, store}) {
        if (opened == null) continue;
        opened.abort();
        opened.close();
      }
      throw e;
    }
    this.counts = second;
  }

  /**
   * The bits of a full image's key hashes: 2 MB. With 250k keys in a partition 1.5% of the keys
   * find their bit set by another (each costs a look-up in the store), with 1M keys 6%; more
   * keys only cost more look-ups.
   */
  private static final int IMAGE_KEY_BITS = 1 << 24;

  /** A family name no store has: a dry run counts the changes of the edited store only. */
  private static final String COUNTED_NOWHERE = "";

  /**
   * True for a write of one entry per key into an HDFS-backed store (not a dry run or a
   * transaction's statement): an upsert's rows are {@link #held}, a replace walks the stored
   * entries ({@link StatePartition#openWalked}); neither loads the partition into a map.
   */
  private static boolean hdfsKeyValues(WritePlan plan, StateEdits edits) {
    return !plan.readOnly()
        && plan.joinCounts() == null
        && edits instanceof StateEdits.KeyValues
        && HDFSBackedStateStoreProvider.class.getName().equals(plan.storeConf().providerClass());
  }

  /** A store partition, read-only for a dry run or a transaction's statement. */
  static StatePartition open(WritePlan plan, StoreSpec spec, int partition, String family) {
    return plan.readOnly()
        ? StatePartition.openReadOnly(
            plan, spec, partition, family, plan.stagingFolder(), plan.earlier())
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
      throw Errors.wrongPartition(
          plan.checkpoint(), plan.uid(), plan.state(), encoder.describe(row), expected, partition);
    }
    if (plan.images() != null) {
      writeImageRow(row);
      return;
    }
    UnsafeRow key = edits.uniqueKey(encoder, row);
    if (key != null) {
      if (key.equals(previous)) {
        throw Errors.duplicateKey(
            plan.checkpoint(), plan.uid(), plan.state(), encoder.describe(row));
      }
      key = key.copy();
      previous = key;
      if (ungiven != null) ungiven.given(key, stored -> edits.drop(store, stored));
    }
    if (held != null) {
      held.add(new Held(key, row.copy()));
      if (held.size() >= HELD_ROWS) {
        applyHeld(() -> open(plan, plan.edited(), partition, plan.editedFamily()));
      }
      return;
    }
    edits.apply(store, encoder, row, key);
  }

  /**
   * Opens the edited store with {@code open} and applies the held rows to it; a partition that
   * cannot be loaded is refused as when a writer opens its store first ({@link RefusedWrites}).
   */
  private void applyHeld(Supplier<StatePartition> open) {
    try {
      store = open.get();
    } catch (Errors.Refusal refusal) {
      throw refusal;
    } catch (Exception e) { // Spark's load errors are SparkExceptions, thrown undeclared
      throw RefusedWrites.unloadable(plan, partition, e);
    }
    for (Held h : held) edits.apply(store, encoder, h.row(), h.key());
    held = null;
  }

  /**
   * A row of a full image, put into the new store as it comes: both providers copy what they
   * keep (RocksDB the bytes, the HDFS-backed store the rows it puts into its map).
   */
  private void writeImageRow(InternalRow row) {
    UnsafeRow key = encoder.entryKey(row);
    if (imageHashes != null) {
      imageHashes.add(key);
    } else if (givenBefore(key)) {
      throw Errors.duplicateKey(plan.checkpoint(), plan.uid(), plan.state(), encoder.describe(row));
    }
    imageRows++;
    store.put(key, encoder.value(row), plan.editedFamily());
  }

  /** True when a full image already holds {@code key} (marks its bit otherwise). */
  private boolean givenBefore(UnsafeRow key) {
    int bit = key.hashCode() & (IMAGE_KEY_BITS - 1);
    long mask = 1L << bit;
    if ((imageKeys[bit >>> 6] & mask) == 0) {
      imageKeys[bit >>> 6] |= mask;
      return false;
    }
    return store.get(key, plan.editedFamily()) != null;
  }

  @Override
  public WriterCommitMessage commit() {
    if (held != null) {
      List<UnsafeRow> keys = held.stream().map(Held::key).toList();
      applyHeld(() -> StatePartition.openFor(plan, plan.edited(), partition, keys));
    }
    if (edits != null) edits.finish(store, replace, ungiven);
    if (plan.images() != null) store.recordImageKeys(imageRows);
    WriterCommitMessage edited = end(store);
    if (imageHashes != null) imageHashes.repeated().ifPresent(this::settleRepeatedHash);
    return counts == null ? edited : new TaskMessages(List.of(edited, end(counts)));
  }

  /**
   * Two keys of a streamed image share a 64-bit hash: the same key given twice, or (about once
   * in 10^8 partitions of a million keys) two keys. Reads the image back as staged (committed,
   * not in place) and refuses the write when it holds fewer keys than were put.
   */
  private void settleRepeatedHash(long hash) {
    String family = plan.editedFamily();
    long[] keys = {0};
    UnsafeRow[] suspect = {null};
    try (StatePartition image = plan.images().openStaged(plan, plan.edited(), partition)) {
      image.forEachKey(
          family,
          key -> {
            keys[0]++;
            if (KeyHashes.of(key) == hash) suspect[0] = key.copy();
          });
    }
    if (keys[0] < imageRows) {
      throw Errors.duplicateKey(
          plan.checkpoint(),
          plan.uid(),
          plan.state(),
          describeKey(suspect[0], plan.edited().keySchema(family)));
    }
  }

  /** "user=alice, item=apple" style rendering of a state key row, for messages. */
  private static String describeKey(UnsafeRow key, StructType schema) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < schema.size(); i++) {
      if (out.length() > 0) out.append(", ");
      DataType type = schema.fields()[i].dataType();
      out.append(schema.fields()[i].name())
          .append('=')
          .append(key.isNullAt(i) ? null : key.get(i, type));
    }
    return out.toString();
  }

  private WriterCommitMessage end(StatePartition partition) {
    return plan.readOnly() ? partition.endReadOnly() : partition.commit();
  }

  @Override
  public void abort() {
    if (store != null) store.abort();
    if (counts != null) counts.abort();
  }

  @Override
  public void close() {
    if (imageHashes != null) imageHashes.close();
    if (ungiven != null) ungiven.close();
    if (store != null) store.close();
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
