package dev.sparksavepoint.read;

import dev.sparksavepoint.adapters.HdfsFileManagers;
import dev.sparksavepoint.adapters.HdfsFileReader;
import dev.sparksavepoint.adapters.SparkState;
import dev.sparksavepoint.checkpoint.KeyHashes;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.io.CompressionCodec;
import org.apache.spark.io.CompressionCodec$;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager$;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.NextIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Enumeration;
import scala.Tuple4;

/**
 * Reads of an HDFS-backed store partition's files that build no map of its entries. Spark's
 * provider loads a version by putting every entry of its newest snapshot and of the deltas
 * after it into a hash map, then copies that map for the store it hands out: what made a
 * one-key lookup (and each partition an edit commits, and counting a savepoint's rows) cost in
 * proportion to the partition. Here the same files are read by Spark's own delta reader
 * ({@link HdfsFileReader}), a record at a time: {@link #values} keeps only the wanted keys'
 * records, the last of each key winning as in Spark's map; {@link #entries} streams every
 * entry of a version, keeping only the changes after its snapshot; {@link #records} counts a
 * file's.
 *
 * <p>Where that cannot be done (Spark 3.5 has no such reader; a version whose deltas after its
 * newest snapshot are not all there, which Spark's provider repairs or reports; a file that
 * fails to read), they answer null or -1, and the caller loads the partition through Spark's
 * provider, whose answer or error stands.
 */
public final class HdfsFiles {
  private static final Logger LOG = LoggerFactory.getLogger(HdfsFiles.class);

  /** A version's data file: group 1 the version, group 2 its kind. */
  private static final Pattern DATA_FILE = Pattern.compile("(\\d+)\\.(delta|snapshot)");

  private HdfsFiles() {}

  /**
   * The stored values of {@code keys} (encoded as Spark encodes them) at version {@code version}
   * of the store partition {@code provider} opens, by key, copied (a key without an entry is
   * absent); null when the partition is not HDFS-backed or its files cannot be read this way.
   * With no keys nothing is read, but the files that make the version are still checked to be
   * there.
   *
   * <pre>{@code
   * Map<UnsafeRow, UnsafeRow> found = HdfsFiles.values(provider, 1, keys, keySchema, valueSchema, conf, hadoop);
   * }</pre>
   */
  public static Map<UnsafeRow, UnsafeRow> values(
      StateStoreProvider provider,
      long version,
      Collection<UnsafeRow> keys,
      StructType keySchema,
      StructType valueSchema,
      StateStoreConf conf,
      Configuration hadoop) {
    if (!HdfsFileReader.available()
        || !(SparkState.provider(provider) instanceof HDFSBackedStateStoreProvider spark)) {
      return null;
    }
    try {
      Partition part =
          Partition.of(spark, provider.stateStoreId(), keySchema, valueSchema, conf, hadoop);
      Files files = part.files(version);
      if (files == null) return null;
      if (keys.isEmpty()) return new HashMap<>();
      Reading reading = new Reading(new HashSet<>(keys));
      for (long v : files.versions(version)) {
        if (!reading.all(part.open(v, files.suffix(v)))) return null;
      }
      return reading.found;
    } catch (Exception e) { // Spark's reader throws IOExceptions undeclared
      LOG.info("reading {} through Spark's provider: {}", provider.stateStoreId(), e.toString());
      return null;
    }
  }

  /** True when this Spark can stream a version's entries ({@link #entries}). */
  public static boolean streams() {
    return HdfsFileReader.available();
  }

  /**
   * Every entry of version {@code version} of the HDFS-backed store partition {@code provider}
   * opens, as Spark's provider would load it, without its map: the changes of the deltas after
   * the version's newest snapshot are kept (key to value, or removed), then the snapshot is
   * streamed record by record, skipping the changed keys, then the changes are. Memory grows
   * with what changed since the snapshot, not with the partition. Without a snapshot the first
   * delta is the base, once a first read of it (8 bytes per key) proves it puts each key once.
   * Null when it cannot be read so (not HDFS-backed, Spark 3.5, a delta missing, a first delta
   * that removes or repeats a key, a file that fails to open): the caller loads the partition
   * through Spark's provider. {@code onClose} runs when the entries are closed (or now, when
   * null is returned, by the caller).
   *
   * <pre>{@code
   * try (HdfsFiles.Entries e = HdfsFiles.entries(provider, 7, keys, values, conf, hadoop, null)) {
   *   while (e.next()) use(e.key(), e.value());
   * }
   * }</pre>
   */
  public static Entries entries(
      StateStoreProvider provider,
      long version,
      StructType keySchema,
      StructType valueSchema,
      StateStoreConf conf,
      Configuration hadoop,
      Runnable onClose) {
    if (!streams()
        || !(SparkState.provider(provider) instanceof HDFSBackedStateStoreProvider spark)) {
      return null;
    }
    if (version == 0) return new Entries(null, Map.of(), onClose);
    NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> base = null;
    try {
      Partition part =
          Partition.of(spark, provider.stateStoreId(), keySchema, valueSchema, conf, hadoop);
      Files files = part.files(version);
      if (files == null) return null;
      long first = files.first();
      if (!files.hasSnapshot() && !putsEachKeyOnce(part.open(first, "delta"))) return null;
      Map<UnsafeRow, UnsafeRow> changes = new HashMap<>();
      for (long v = first + 1; v <= version; v++) {
        boolean read =
            eachRecord(
                part.open(v, "delta"),
                r -> {
                  changes.put(r._2().copy(), r._3() == null ? null : r._3().copy());
                  return true;
                });
        if (!read) return null;
      }
      base = part.open(first, files.suffix(first));
      return base == null ? null : new Entries(base, changes, onClose);
    } catch (Exception e) { // Spark's reader throws IOExceptions undeclared
      if (base != null) base.close();
      LOG.info("reading {} through Spark's provider: {}", provider.stateStoreId(), e.toString());
      return null;
    }
  }

  /**
   * True when {@code records} (a version's first delta, then closed) hold puts only, each of
   * another key: distinct 64-bit hashes of the keys prove it ({@link KeyHashes}).
   */
  private static boolean putsEachKeyOnce(
      NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> records) {
    try (KeyHashes hashes = new KeyHashes()) {
      boolean puts =
          eachRecord(
              records,
              r -> {
                if (r._3() == null) return false;
                hashes.add(r._2());
                return true;
              });
      return puts && hashes.repeated().isEmpty();
    }
  }

  /**
   * A version's entries, one at a time ({@link #entries}): the base file's records whose key
   * did not change after it, then the changed keys' values.
   */
  public static final class Entries implements AutoCloseable {
    private final NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> base;
    private final Map<UnsafeRow, UnsafeRow> changes;
    private final Runnable onClose;
    private Iterator<Map.Entry<UnsafeRow, UnsafeRow>> changed;
    private UnsafeRow key;
    private UnsafeRow value;
    private boolean closed;

    Entries(
        NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> base,
        Map<UnsafeRow, UnsafeRow> changes,
        Runnable onClose) {
      this.base = base;
      this.changes = changes;
      this.onClose = onClose;
    }

    /** Moves to the next entry; false after the last. */
    public boolean next() {
      while (base != null && base.hasNext()) {
        Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object> r = base.next();
        if (r._3() == null) throw new IllegalStateException("a removal in a snapshot");
        if (changes.containsKey(r._2())) continue;
        key = r._2();
        value = r._3();
        return true;
      }
      if (changed == null) changed = changes.entrySet().iterator();
      while (changed.hasNext()) {
        Map.Entry<UnsafeRow, UnsafeRow> e = changed.next();
        if (e.getValue() == null) continue;
        key = e.getKey();
        value = e.getValue();
        return true;
      }
      return false;
    }

    /** The current entry's key, as Spark encodes it (valid until {@link #next}). */
    public UnsafeRow key() {
      return key;
    }

    /** The current entry's value. */
    public UnsafeRow value() {
      return value;
    }

    @Override
    public void close() {
      if (closed) return;
      closed = true;
      try {
        if (base != null) base.close();
      } finally {
        if (onClose != null) onClose.run();
      }
    }
  }

  /**
   * The number of records in {@code <version>.<suffix>} of store {@code id}'s partition folder,
   * all of them puts: for a file that puts each key once (a {@code .snapshot}, written from
   * Spark's map), its entries. -1 when the file holds a removal, or cannot be read so (the caller
   * counts through Spark's provider).
   */
  public static long records(
      StateStoreId id,
      long version,
      String suffix,
      StructType keySchema,
      StructType valueSchema,
      StateStoreConf conf,
      Configuration hadoop) {
    Path folder = id.storeCheckpointLocation();
    try {
      CheckpointFileManager fm = CheckpointFileManager$.MODULE$.create(folder, hadoop);
      NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> records =
          new Partition(id, fm, keySchema, valueSchema, conf).open(version, suffix);
      long[] n = {0};
      boolean puts =
          eachRecord(
              records,
              r -> {
                if (r._3() == null) return false;
                n[0]++;
                return true;
              });
      return puts ? n[0] : -1;
    } catch (Exception e) { // Spark's reader throws IOExceptions undeclared
      LOG.info("counting {} through Spark's provider: {}", folder, e.toString());
      return -1;
    }
  }

  /** The codec the store's files are compressed with, made as Spark's provider makes it. */
  private static CompressionCodec codec(StateStoreConf conf) {
    SparkConf spark = SparkEnv.get() != null ? SparkEnv.get().conf() : new SparkConf();
    return CompressionCodec$.MODULE$.createCodec(spark, conf.compressionCodec());
  }

  /** A store partition's folder, read through Spark's reader with its schemas and codec. */
  private record Partition(
      StateStoreId id,
      CheckpointFileManager fm,
      StructType keySchema,
      StructType valueSchema,
      StateStoreConf conf) {

    /** The partition {@code id} of {@code provider}, read through the provider's file manager. */
    static Partition of(
        HDFSBackedStateStoreProvider provider,
        StateStoreId id,
        StructType keySchema,
        StructType valueSchema,
        StateStoreConf conf,
        Configuration hadoop) {
      Path folder = id.storeCheckpointLocation();
      return new Partition(
          id, HdfsFileManagers.of(provider, folder, hadoop), keySchema, valueSchema, conf);
    }

    /** The files that make {@code version} (see {@link Files#of}), or null. */
    Files files(long version) {
      Path folder = id.storeCheckpointLocation();
      return version > 0 ? Files.of(fm.list(folder), version) : Files.NO_SNAPSHOT;
    }

    /** The records of {@code <version>.<suffix>}; null when this Spark has no such reader. */
    NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> open(
        long version, String suffix) {
      return HdfsFileReader.open(
          id,
          fm,
          id.storeCheckpointLocation(),
          version,
          suffix,
          codec(conf),
          keySchema,
          valueSchema,
          conf);
    }
  }

  /** The wanted keys, and the values found so far. */
  private static final class Reading {
    private final Set<UnsafeRow> wanted;
    private final Map<UnsafeRow, UnsafeRow> found = new HashMap<>();

    Reading(Set<UnsafeRow> wanted) {
      this.wanted = wanted;
    }

    /** Applies every record of {@code records} (closed after); false when it is null. */
    boolean all(NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> records) {
      return eachRecord(
          records,
          record -> {
            UnsafeRow key = record._2();
            if (!wanted.contains(key)) return true;
            if (record._3() == null) found.remove(key);
            else found.put(key.copy(), record._3().copy());
            return true;
          });
    }
  }

  /**
   * Hands each record (kind, key, value or null for a removal, version) of {@code records} to
   * {@code record} until it answers false, then closes them; true when every record was handed
   * on, false when {@code records} is null (this Spark has no reader) or a record stopped it.
   */
  private static boolean eachRecord(
      NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> records,
      Predicate<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> record) {
    if (records == null) return false;
    try {
      while (records.hasNext()) {
        if (!record.test(records.next())) return false;
      }
      return true;
    } finally {
      records.close();
    }
  }

  /**
   * The files that make a version: the newest snapshot at or below it whose every later delta
   * up to it is there (or none: every delta from version 1), then those deltas.
   */
  private record Files(long snapshot, boolean hasSnapshot) {
    static final Files NO_SNAPSHOT = new Files(0, false);

    /** The plan for {@code version} among the partition's {@code listed} files, or null. */
    static Files of(FileStatus[] listed, long version) {
      TreeSet<Long> snapshots = new TreeSet<>();
      Set<Long> deltas = new HashSet<>();
      for (FileStatus status : listed) {
        Matcher m = DATA_FILE.matcher(status.getPath().getName());
        if (!m.matches()) continue;
        long v = Long.parseLong(m.group(1));
        if (v > version) continue;
        if (m.group(2).equals("snapshot")) snapshots.add(v);
        else deltas.add(v);
      }
      long from = version;
      while (from > 0 && deltas.contains(from) && !snapshots.contains(from)) from--;
      if (from == 0) return NO_SNAPSHOT;
      return snapshots.contains(from) ? new Files(from, true) : null;
    }

    /** The versions whose files are read, in order, up to {@code version}. */
    long[] versions(long version) {
      long first = first();
      long[] out = new long[(int) (version - first + 1)];
      for (int i = 0; i < out.length; i++) out[i] = first + i;
      return out;
    }

    /** The version whose file is read first: the snapshot's, else 1 (the first delta). */
    long first() {
      return hasSnapshot ? snapshot : 1;
    }

    /** The suffix of the file read for version {@code v}. */
    String suffix(long v) {
      return hasSnapshot && v == snapshot ? "snapshot" : "delta";
    }
  }
}
