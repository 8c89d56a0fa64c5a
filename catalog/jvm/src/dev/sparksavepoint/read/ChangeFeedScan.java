package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.ChangeFiles;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.TableOrigin;
import dev.sparksavepoint.conf.Settings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The change feed of a keyed state over batches {@code from} to {@code to}, read from the
 * batches' change files (HDFS-backed {@code .delta}, RocksDB {@code .changelog}) through Spark's
 * own {@code readChangeFeed}, one task per state partition. A change file records puts and
 * removals but not whether a key existed before (docs/checkpoint-formats.md), so each task looks
 * the keys it saw changed up in its partition's store as of batch {@code from - 1} (one load of
 * that partition, none where nothing changed), then replays the changes in batch order: a put of
 * an absent key is an {@code insert}, of a present one with another value an {@code update}, a
 * removal of a present key a {@code delete}; a put of the same value and a removal of an absent
 * key change nothing and give no row, and only a key's last change in a batch counts. The rows
 * are those of the diff of each batch with the one before it ({@code StateDiff}), without
 * reading either.
 *
 * <p>A filter that pins the key columns ({@link KeyPredicates}) keeps the other keys' changes
 * out before the lookup.
 */
public final class ChangeFeedScan extends OverSparkScan {
  private final StoreTarget before;
  private final String description;
  private final FlatScan.ReadFailure failure;
  private final List<byte[]> pinned;

  private ChangeFeedScan(
      Scan source,
      FlatSchema flat,
      StoreTarget before,
      String description,
      FlatScan.ReadFailure failure,
      List<byte[]> pinned) {
    super(source, flat);
    this.before = before;
    this.description = description;
    this.failure = failure;
    this.pinned = pinned;
  }

  /**
   * The columns of Spark's change feed of a state whose reader schema is {@code state}: {@code
   * batch_id, change_type}, its {@code key} and {@code value}, {@code partition_id}.
   */
  public static StructType feedSchema(StructType state) {
    return new StructType()
        .add("batch_id", org.apache.spark.sql.types.DataTypes.LongType, false)
        .add("change_type", org.apache.spark.sql.types.DataTypes.StringType, false)
        .add(state.apply("key"))
        .add(state.apply("value"))
        .add(state.apply(FlatSchema.PARTITION_ID));
  }

  /**
   * The scans of the change feed of batches {@code from} to {@code to} of a table from {@code
   * origin} ({@code table}: its flat schema, {@code options}: its reader options), or null where
   * this feed does not apply and the feed is a diff of full reads: Spark before 4.0 (no {@code
   * readChangeFeed}), {@link Settings#CHANGES_FROM_CHANGE_FILES} off, a range past the table's
   * batch (the diff refuses it), a state without one key and one value per entry (see {@link
   * StoreTarget#at}), state checkpoint ids (format v2), or a version in the range
   * without change files in every partition ({@link ChangeFiles#cover}).
   */
  public static Supplier<ScanBuilder> of(
      SparkSession spark,
      TableOrigin origin,
      FlatSchema table,
      Map<String, String> options,
      long from,
      long to,
      String name,
      FlatScan.ReadFailure failure) {
    if (org.apache.spark.package$.MODULE$.SPARK_VERSION().startsWith("3.")
        || !spark.conf().get(Settings.CHANGES_FROM_CHANGE_FILES, "true").equals("true")) {
      return null;
    }
    // a batch after the table's (planned, never committed: a dead writer's files) is no change
    if (to > origin.batchId() || from > to) return null;
    org.apache.hadoop.conf.Configuration hadoop = spark.sessionState().newHadoopConf();
    Checkpoint ckpt = Checkpoint.open(origin.checkpoint(), hadoop);
    StoreTarget before =
        StoreTarget.at(spark, origin, table.source(), Math.max(from - 1, 0), ckpt, hadoop);
    if (before == null || before.ids() != null) return null;
    Operator op = origin.operator();
    if (StoreProviders.uniqueIds(ckpt, to) != null) return null;
    try {
      Path folder = new Path(new Path(ckpt.location(), "state"), Long.toString(op.id()));
      long first = CheckpointLog.stateVersion(from);
      long last = CheckpointLog.stateVersion(to);
      if (!ChangeFiles.cover(
          ckpt.fileSystem(), folder, origin.ref().value(), op.numPartitions(), first, last)) {
        return null;
      }
    } catch (IOException e) {
      return null; // the diff of full reads reports what cannot be read
    }
    Map<String, String> feed = new HashMap<>(options);
    feed.remove("batchId");
    feed.put("readChangeFeed", "true");
    feed.put("changeStartBatchId", Long.toString(from));
    feed.put("changeEndBatchId", Long.toString(to));
    StructType schema = feedSchema(table.source());
    String description =
        "savepoint changes "
            + name
            + " of batches "
            + from
            + " to "
            + to
            + " (change files"
            + (from == 0 ? "" : "; changed keys looked up as of batch " + (from - 1));
    return () ->
        builder(
            () -> StateSource.scanBuilder(schema, feed),
            table.changes(),
            from == 0 ? null : before,
            description,
            failure);
  }

  /**
   * The builder of the feed: {@code source} builds Spark's change feed scan (rows of {@link
   * #feedSchema}), {@code flat} flattens them ({@link FlatSchema#changes}); {@code before} looks
   * keys up as of the batch before the first, null when there is none (the feed starts at batch
   * 0).
   */
  private static ScanBuilder builder(
      Supplier<ScanBuilder> source,
      FlatSchema flat,
      StoreTarget before,
      String description,
      FlatScan.ReadFailure failure) {
    return new Builder(source, flat, before, description, failure);
  }

  private static final class Builder
      implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
    private final Supplier<ScanBuilder> source;
    private final FlatSchema flat;
    private final StoreTarget before;
    private final String description;
    private final FlatScan.ReadFailure failure;
    private KeyPredicates.Pinned pinned;

    Builder(
        Supplier<ScanBuilder> source,
        FlatSchema flat,
        StoreTarget before,
        String description,
        FlatScan.ReadFailure failure) {
      this.source = source;
      this.flat = flat;
      this.before = before;
      this.description = description;
      this.failure = failure;
    }

    @Override
    public Predicate[] pushPredicates(Predicate[] predicates) {
      List<String> key = flat.keyColumns();
      if (key != null) pinned = KeyPredicates.pin(predicates, key, flat.schema());
      return predicates; // Spark evaluates them again on the rows: pinning only prunes
    }

    @Override
    public Predicate[] pushedPredicates() {
      return pinned == null ? new Predicate[0] : pinned.used();
    }

    @Override
    public void pruneColumns(StructType required) {} // every column is read

    @Override
    public Scan build() {
      List<byte[]> keys = null;
      if (pinned != null) {
        StructType keySchema = (StructType) flat.source().apply("key").dataType();
        keys = new ArrayList<>();
        for (Object[] values : pinned.keys()) {
          keys.add(KeyLookupScan.encode(keySchema, values).getBytes());
        }
      }
      return new ChangeFeedScan(source.get().build(), flat, before, description, failure, keys);
    }
  }

  @Override
  public String description() {
    return description + (pinned == null ? ")" : "; key filter: " + pinned.size() + " keys)");
  }

  @Override
  PartitionReaderFactory readers(PartitionReaderFactory source) {
    return new ReaderFactory(source, flat, before, failure, pinned);
  }

  /** One change of a key: the batch, and the value after it (null: removed). */
  private record Change(long batch, UnsafeRow value) {}

  /** Serialized to the executors: reads a partition's changes and classifies them. */
  record ReaderFactory(
      PartitionReaderFactory source,
      FlatSchema flat,
      StoreTarget before,
      FlatScan.ReadFailure failure,
      List<byte[]> pinned)
      implements PartitionReaderFactory {
    private static final int BATCH = 0;
    private static final int TYPE = 1;
    private static final int KEY = 2;
    private static final int VALUE = 3;
    private static final int PARTITION = 4;

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition input) {
      List<InternalRow> rows = new ArrayList<>();
      try {
        StructType keySchema = (StructType) flat.source().apply(KEY).dataType();
        StructType valueSchema = (StructType) flat.source().apply(VALUE).dataType();
        Map<UnsafeRow, List<Change>> changes = new LinkedHashMap<>();
        int partition = read(input, keySchema, valueSchema, changes);
        if (changes.isEmpty()) return new ListedRows(rows);
        List<UnsafeRow> keys = new ArrayList<>(changes.keySet());
        List<UnsafeRow> values =
            before == null ? new ArrayList<>() : before.values(partition, keys);
        UnsafeProjection projection = flat.projection();
        for (int i = 0; i < keys.size(); i++) {
          UnsafeRow previous = i < values.size() ? values.get(i) : null;
          for (Change change : changes.get(keys.get(i))) {
            String type = changeType(previous, change.value());
            previous = change.value();
            if (type == null) continue;
            Object[] row = {
              change.batch(), UTF8String.fromString(type), keys.get(i), change.value(), partition
            };
            rows.add(projection.apply(new GenericInternalRow(row)).copy());
          }
        }
      } catch (IOException | RuntimeException e) {
        throw failure.of(e);
      }
      return new ListedRows(rows);
    }

    /**
     * Reads the changes of {@code input}'s partition into {@code changes} (each key's last
     * change per batch, batches in order), keys and values encoded as Spark stores them;
     * returns the partition (-1 when it changed nothing).
     */
    private int read(
        InputPartition input,
        StructType keySchema,
        StructType valueSchema,
        Map<UnsafeRow, List<Change>> changes)
        throws IOException {
      UnsafeProjection keyRow = UnsafeProjection.create(keySchema);
      UnsafeProjection valueRow = UnsafeProjection.create(valueSchema);
      Set<UnsafeRow> wanted = pinned == null ? null : wanted(keySchema.size());
      int partition = -1;
      PartitionReader<InternalRow> reader = source.createReader(input);
      try {
        while (reader.next()) {
          InternalRow row = reader.get();
          UnsafeRow key = keyRow.apply(row.getStruct(KEY, keySchema.size())).copy();
          if (wanted != null && !wanted.contains(key)) continue;
          partition = row.getInt(PARTITION);
          boolean removed = row.getUTF8String(TYPE).toString().equals("delete");
          UnsafeRow value =
              removed || row.isNullAt(VALUE)
                  ? null
                  : valueRow.apply(row.getStruct(VALUE, valueSchema.size())).copy();
          List<Change> list = changes.computeIfAbsent(key, k -> new ArrayList<>());
          long batch = row.getLong(BATCH);
          if (!list.isEmpty() && list.get(list.size() - 1).batch() == batch) {
            list.remove(list.size() - 1);
          }
          list.add(new Change(batch, value));
        }
      } finally {
        reader.close();
      }
      return partition;
    }

    private Set<UnsafeRow> wanted(int fields) {
      Set<UnsafeRow> keys = new java.util.HashSet<>();
      for (byte[] bytes : pinned) {
        UnsafeRow key = new UnsafeRow(fields);
        key.pointTo(bytes, bytes.length);
        keys.add(key);
      }
      return keys;
    }

    /** What a change from {@code before} to {@code after} is (null: absent), or null: none. */
    private static String changeType(UnsafeRow before, UnsafeRow after) {
      if (after == null) return before == null ? null : "delete";
      if (before == null) return "insert";
      return before.equals(after) ? null : "update";
    }
  }
}
