package dev.sparksavepoint.image;

import dev.sparksavepoint.adapters.SparkState;
import dev.sparksavepoint.adapters.Stores;
import dev.sparksavepoint.checkpoint.FileDigests;
import dev.sparksavepoint.checkpoint.KeyPartitioner;
import dev.sparksavepoint.checkpoint.StoreFiles;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.image.ImagePlan.StoreCopy;
import dev.sparksavepoint.read.HdfsFiles;
import dev.sparksavepoint.store.StatePartition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.execution.streaming.state.StateStoreIterator;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import org.apache.spark.unsafe.Platform;
import scala.Option;
import scala.Tuple2;

/**
 * The task side of a state copy ({@link StateImage}): reads every entry of one source store
 * partition at version N+1 through Spark's provider (a read-only store, aborted after), and
 * writes one target store partition as a full image of version N+1: RocksDB loads an empty
 * store at version N and commits N+1 as a {@code .zip} snapshot; an HDFS-backed store commits
 * the entries as version 1 on top of no state, a delta of puts only, which is then named as the
 * snapshot of version N+1 (an HDFS-backed snapshot holds entries only; its version is its file
 * name). Entries travel
 * between the two as packed bytes: column family index, key bytes, value bytes.
 */
final class ImagePartition {
  private ImagePartition() {}

  /** The column families a copy reads and writes: the user's and Spark's, or "default". */
  static List<String> families(StoreSpec spec) {
    return spec.families() == null
        ? List.of(StateStore.DEFAULT_COL_FAMILY_NAME())
        : spec.families().names();
  }

  /**
   * Copies source partition {@code p} into target partition {@code p} (no rehash): file by file
   * where the version is one full image the target keeps ({@link ImageFiles}), else entry by
   * entry.
   */
  static CopiedPartition copy(ImagePlan plan, StoreCopy copy, int p) {
    if (copy.from() == null) return write(plan, copy, p, java.util.Collections.emptyIterator());
    CopiedPartition files = copy.transform() == null ? ImageFiles.copy(plan, copy, p) : null;
    if (files != null) return files;
    try (Source source = new Source(plan, copy, p)) {
      return write(plan, copy, p, source);
    }
  }

  /**
   * The entries of source partition {@code p}, each with the target partition its key hashes
   * to; the store closes when the last entry is read or the task ends.
   */
  static Iterator<Tuple2<Integer, byte[]>> rehashed(ImagePlan plan, StoreCopy copy, int p) {
    Source source = new Source(plan, copy, p);
    TaskContext task = TaskContext.get();
    if (task != null) {
      task.addTaskCompletionListener(
          (org.apache.spark.util.TaskCompletionListener) context -> source.close());
    }
    List<KeyPartitioner> partitioners = new ArrayList<>();
    List<String> families = families(copy.from());
    for (String family : families) {
      partitioners.add(
          KeyPartitioner.of(
              copy.from().storeName(),
              family,
              copy.from().keySchema(family),
              copy.to().numPartitions()));
    }
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        boolean more = source.hasNext();
        if (!more) source.close();
        return more;
      }

      @Override
      public Tuple2<Integer, byte[]> next() {
        byte[] entry = source.next();
        ByteBuffer buffer = ByteBuffer.wrap(entry);
        int family = buffer.getInt();
        int keyLength = buffer.getInt();
        UnsafeRow key =
            row(entry, 8, keyLength, copy.from().keySchema(families.get(family)).size());
        return new Tuple2<>(partitioners.get(family).partition(key), entry);
      }
    };
  }

  /**
   * Writes target partition {@code p} from packed entries; commits version N+1 (and digests the
   * partition's files when the plan asks).
   */
  static CopiedPartition write(ImagePlan plan, StoreCopy copy, int p, Iterator<byte[]> entries) {
    StoreSpec spec = copy.to();
    StateStoreProvider probe = null;
    boolean hdfs;
    try {
      probe =
          StoreProviders.open(
              plan.stateLocation(), plan.runId(), plan.targetConf(), plan.hadoopConf(), spec, p);
      hdfs = SparkState.provider(probe) instanceof HDFSBackedStateStoreProvider;
    } finally {
      if (probe != null) probe.close();
    }
    long version = plan.version();
    List<String> families = families(spec);
    // entries name their family by its index in the source's list (the target's may differ:
    // an upgraded transformWithState operator has state variables added or dropped)
    List<String> sourceFamilies = copy.from() == null ? families : families(copy.from());
    PartitionCommit commit;
    long puts = 0;
    try (StatePartition store =
        StatePartition.open(
            plan.stateLocation(),
            plan.runId(),
            plan.writeConf(spec),
            plan.hadoopConf(),
            spec,
            p,
            hdfs ? 0 : version - 1,
            null,
            !hdfs)) {
      store.streamImage(); // the source's keys are unique: nothing to look up
      try {
        while (entries.hasNext()) {
          byte[] entry = entries.next();
          ByteBuffer buffer = ByteBuffer.wrap(entry);
          int family = buffer.getInt();
          int keyLength = buffer.getInt();
          String name = sourceFamilies.get(family);
          if (!families.contains(name)) continue; // a dropped state variable
          UnsafeRow key = row(entry, 8, keyLength, spec.keySchema(name).size());
          UnsafeRow value =
              row(
                  entry,
                  8 + keyLength,
                  entry.length - 8 - keyLength,
                  copy.transform() == null
                      ? spec.valueSchema(name).size()
                      : copy.transform().oldFields());
          if (copy.transform() != null) value = copy.transform().apply(value);
          if (spec.families() != null && spec.families().isMultiValued(name)) {
            store.merge(key, value, name);
          } else {
            store.put(key, value, name);
            puts++;
          }
        }
        if (plan.uncounted(spec)) store.recordImageKeys(puts);
        commit = store.commit();
      } catch (RuntimeException e) {
        store.abort();
        throw e;
      }
    }
    if (hdfs) deltaAsSnapshot(plan, spec, p, version);
    return new CopiedPartition(commit, plan.fileDigests() ? digests(plan, spec, p) : List.of());
  }

  /** The digests of every file under target partition {@code p}'s store folder. */
  private static List<FileDigests.Digest> digests(ImagePlan plan, StoreSpec spec, int p) {
    Path folder = ImageFiles.folder(plan.stateLocation(), spec, p);
    Path root = new Path(plan.checkpoint());
    List<FileDigests.Digest> digests = new ArrayList<>();
    try {
      FileSystem fs = folder.getFileSystem(plan.hadoopConf());
      for (String file : FileDigests.list(fs, folder, null)) {
        Path path = new Path(folder, file);
        digests.add(FileDigests.of(fs, path, FileDigests.relative(fs, root, path)));
      }
    } catch (IOException e) {
      throw new IllegalStateException("[SAVEPOINT_WRITE_FAILED] " + e.getMessage(), e);
    }
    return digests;
  }

  /**
   * An HDFS-backed store's version 1, a delta on top of no state, becomes the snapshot of
   * {@code version} ({@link StoreFiles#asSnapshot}), its checksum companions with it.
   */
  private static void deltaAsSnapshot(ImagePlan plan, StoreSpec spec, int p, long version) {
    Path dir =
        new Path(
            new StateStoreId(plan.stateLocation(), spec.operatorId(), p, spec.storeName())
                .storeCheckpointLocation()
                .toString());
    try {
      FileSystem fs = dir.getFileSystem(plan.hadoopConf());
      for (FileStatus file : fs.listStatus(dir)) {
        String name = file.getPath().getName();
        if (!StoreFiles.isDeltaOf(name, 1)) continue;
        if (!fs.rename(file.getPath(), new Path(dir, StoreFiles.asSnapshot(name, version)))) {
          throw new IOException("could not rename " + file.getPath());
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("[SAVEPOINT_WRITE_FAILED] " + e.getMessage(), e);
    }
  }

  private static UnsafeRow row(byte[] bytes, int offset, int length, int fields) {
    UnsafeRow row = new UnsafeRow(fields);
    row.pointTo(bytes, Platform.BYTE_ARRAY_OFFSET + offset, length);
    return row;
  }

  /**
   * Every entry of one source store partition at version N+1, packed; read-only. An
   * HDFS-backed partition's files are streamed ({@link HdfsFiles#entries}) where they can be,
   * rather than loaded into Spark's map.
   */
  static final class Source implements Iterator<byte[]>, AutoCloseable {
    private final StateStoreProvider provider;
    private final ReadStateStore store;

    /** The entries streamed from an HDFS-backed partition's files; null: read from store. */
    private final HdfsFiles.Entries streamed;

    /** True when {@link #streamed} is at an entry not yet returned. */
    private boolean streamedAhead;

    private final List<String> families;
    private final boolean[] multi;
    private int family = -1;
    private StateStoreIterator<UnsafeRowPair> rows;
    private boolean closed;

    Source(ImagePlan plan, StoreCopy copy, int p) {
      StoreSpec spec = copy.from();
      this.families = families(spec);
      this.multi = new boolean[families.size()];
      for (int i = 0; i < multi.length; i++) {
        multi[i] = spec.families() != null && spec.families().isMultiValued(families.get(i));
      }
      this.provider =
          StoreProviders.open(
              plan.sourceState(), plan.runId(), plan.sourceConf(), plan.hadoopConf(), spec, p);
      try {
        String id = plan.sourceId(spec, p);
        this.streamed =
            spec.families() != null || id != null
                ? null
                : HdfsFiles.entries(
                    provider,
                    plan.version(),
                    spec.keySchema(),
                    spec.valueSchema(),
                    plan.sourceConf(),
                    plan.hadoopConf(),
                    null);
        this.store =
            streamed != null ? null : provider.getReadStore(plan.version(), Option.apply(id));
        if (spec.families() != null) spec.families().register((StateStore) store);
      } catch (RuntimeException e) {
        provider.close();
        throw e;
      }
    }

    @Override
    public boolean hasNext() {
      if (closed) return false;
      if (streamed != null) {
        if (!streamedAhead) streamedAhead = streamed.next();
        return streamedAhead;
      }
      while (rows == null || !rows.hasNext()) {
        if (rows != null) rows.close();
        if (++family >= families.size()) {
          rows = null;
          return false;
        }
        String name = families.get(family);
        rows = multi[family] ? Stores.multiValued(store, name) : store.iterator(name);
      }
      return true;
    }

    @Override
    public byte[] next() {
      if (!hasNext()) throw new NoSuchElementException();
      byte[] key;
      byte[] value;
      if (streamed != null) {
        streamedAhead = false;
        key = streamed.key().getBytes();
        value = streamed.value().getBytes();
      } else {
        UnsafeRowPair pair = rows.next();
        key = pair.key().getBytes();
        value = pair.value().getBytes();
      }
      return ByteBuffer.allocate(8 + key.length + value.length)
          .putInt(Math.max(family, 0))
          .putInt(key.length)
          .put(key)
          .put(value)
          .array();
    }

    /** The number of entries left to read (all of them on a new source). */
    long count() {
      long n = 0;
      while (hasNext()) {
        if (streamed != null) streamedAhead = false;
        else rows.next();
        n++;
      }
      return n;
    }

    @Override
    public void close() {
      if (closed) return;
      closed = true;
      try {
        if (rows != null) rows.close();
        if (streamed != null) streamed.close();
        else store.abort();
      } finally {
        provider.close();
      }
    }
  }
}
