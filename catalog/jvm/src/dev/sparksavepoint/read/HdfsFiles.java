package dev.sparksavepoint.read;

import dev.sparksavepoint.adapters.HdfsFileManagers;
import dev.sparksavepoint.adapters.HdfsFileReader;
import dev.sparksavepoint.adapters.SparkState;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
 * records, the last of each key winning as in Spark's map; {@link #records} counts a file's.
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
   * Map<UnsafeRow, UnsafeRow> found = HdfsFiles.values(provider, 1, keys, conf, hadoop);
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
    StateStoreId id = provider.stateStoreId();
    Path folder = id.storeCheckpointLocation();
    try {
      CheckpointFileManager fm = HdfsFileManagers.of(spark, folder, hadoop);
      Files files = version > 0 ? Files.of(fm.list(folder), version) : Files.NO_SNAPSHOT;
      if (files == null) return null;
      if (keys.isEmpty()) return new HashMap<>();
      Reading reading = new Reading(new HashSet<>(keys));
      CompressionCodec codec = codec(conf);
      for (long v : files.versions(version)) {
        NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> records =
            HdfsFileReader.open(
                id, fm, folder, v, files.suffix(v), codec, keySchema, valueSchema, conf);
        if (records == null) return null;
        reading.all(records);
      }
      return reading.found;
    } catch (Exception e) { // Spark's reader throws IOExceptions undeclared
      LOG.info("reading {} through Spark's provider: {}", folder, e.toString());
      return null;
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
          HdfsFileReader.open(
              id, fm, folder, version, suffix, codec(conf), keySchema, valueSchema, conf);
      if (records == null) return -1;
      long n = 0;
      try {
        while (records.hasNext()) {
          if (records.next()._3() == null) return -1;
          n++;
        }
      } finally {
        records.close();
      }
      return n;
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

  /** The wanted keys, and the values found so far. */
  private static final class Reading {
    private final Set<UnsafeRow> wanted;
    private final Map<UnsafeRow, UnsafeRow> found = new HashMap<>();

    Reading(Set<UnsafeRow> wanted) {
      this.wanted = wanted;
    }

    /** Applies every record of {@code records}, then closes it. */
    void all(NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> records) {
      try {
        while (records.hasNext()) {
          Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object> record = records.next();
          UnsafeRow key = record._2();
          if (!wanted.contains(key)) continue;
          if (record._3() == null) found.remove(key);
          else found.put(key.copy(), record._3().copy());
        }
      } finally {
        records.close();
      }
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
      long first = hasSnapshot ? snapshot : 1;
      long[] out = new long[(int) (version - first + 1)];
      for (int i = 0; i < out.length; i++) out[i] = first + i;
      return out;
    }

    /** The suffix of the file read for version {@code v}. */
    String suffix(long v) {
      return hasSnapshot && v == snapshot ? "snapshot" : "delta";
    }
  }
}
