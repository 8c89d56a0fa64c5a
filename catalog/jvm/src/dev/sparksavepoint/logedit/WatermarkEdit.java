package dev.sparksavepoint.logedit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.commit.CheckpointCommit;
import dev.sparksavepoint.commit.EditReport;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.store.StoreBatch;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;

/**
 * Sets the event-time watermark the query continues from: an UPDATE or MERGE of the last
 * batch's row of {@code query.batches} ({@code watermark}, {@code watermark_ms} or
 * {@code next_watermark_ms}) becomes batch N+1, whose offsets entry is offsets/N with
 * {@code batchWatermarkMs} set and whose commit sets {@code nextBatchWatermarkMs} to the same
 * value (a restarted query starts from the larger of the two), with batch N's state carried
 * over unchanged. The same transaction as every write; its report warns what the new
 * watermark means for late input and state eviction.
 */
public final class WatermarkEdit {
  static final String TABLE = "query.batches";
  static final Set<String> WATERMARK_COLUMNS =
      Set.of("watermark", "watermark_ms", "next_watermark_ms");

  private WatermarkEdit() {}

  /**
   * Commits the watermark the last batch's row of {@code after} sets, as a new batch; {@code
   * before} are the rows of the table read at batch {@code readBatch}, of columns
   * {@code schema} (batch id first).
   */
  public static EditReport apply(
      SparkSession spark,
      String location,
      long readBatch,
      StructType schema,
      InternalRow[] before,
      List<InternalRow> after) {
    Checkpoint ckpt = Checkpoint.open(location, spark.sessionState().newHadoopConf());
    long last = LogEdits.lastBatch(spark, ckpt, "query", "batches", readBatch);
    Long watermark = newWatermark(ckpt.location(), last, schema, before, after);
    long current = currentWatermark(ckpt, last);
    if (watermark == null || watermark == current) {
      return EditReport.record(new EditReport(ckpt.location(), TABLE, -1, 0, 0));
    }
    long batch = CheckpointLog.nextBatch(last);
    byte[] entry =
        LogEdits.nextEntry(
            ckpt,
            last,
            bytes ->
                CheckpointLog.withMetadataField(
                    bytes, "batchWatermarkMs", LongNode.valueOf(watermark)));
    StoreBatch plan = StoreBatch.carryOver(spark, ckpt, last);
    CheckpointCommit tx =
        CheckpointCommit.begin(plan, "set the watermark of batch " + batch, entry);
    try {
      tx.setNextWatermark(watermark);
      tx.finish(LogEdits.carriedOver(plan, batch));
    } catch (RuntimeException e) {
      tx.rollback();
      throw e;
    }
    return EditReport.record(
        new EditReport(ckpt.location(), TABLE, batch, 1, 0, warning(current, watermark, batch)));
  }

  /**
   * The offsets entry of a batch after {@code last} that runs the watermark {@code last} set for
   * the next batch, as a no-data batch of Spark's does: offsets/last with {@code
   * batchWatermarkMs} set to it, so that input under it is late for the batch after.
   */
  public static byte[] evictingEntry(Checkpoint ckpt, long last) {
    long watermark = currentWatermark(ckpt, last);
    return LogEdits.nextEntry(
        ckpt,
        last,
        bytes ->
            CheckpointLog.withMetadataField(
                bytes, "batchWatermarkMs", LongNode.valueOf(watermark)));
  }

  /** The watermark a query restarted after batch {@code last} starts from. */
  static long currentWatermark(Checkpoint ckpt, long last) {
    long ran = ckpt.offsetMetadata(last).path("batchWatermarkMs").asLong(0);
    try {
      JsonNode commit = ckpt.commitLog().metadata(last);
      return Math.max(ran, commit.path("nextBatchWatermarkMs").asLong(0));
    } catch (IOException e) {
      throw Errors.corruptFile(
          ckpt.location(),
          CheckpointLog.COMMITS + "/" + last,
          "batch " + last,
          e,
          "Restore the file from a copy of the checkpoint.");
    }
  }

  /** What a watermark moved from {@code from} to {@code to} means, in one line. */
  static String warning(long from, long to, long batch) {
    String move =
        "savepoint: the watermark moves "
            + (to < from ? "back" : "forward")
            + " from "
            + Instant.ofEpochMilli(from)
            + " to "
            + Instant.ofEpochMilli(to)
            + " (batch "
            + batch
            + "): ";
    if (to < from) {
      return move
          + "input with event times after "
          + Instant.ofEpochMilli(to)
          + " is no"
          + " longer late and is processed again; state that was evicted before is gone, so"
          + " such input starts new state, and windows already emitted in append mode can be"
          + " emitted again";
    }
    return move
        + "the next batch evicts the state older than "
        + Instant.ofEpochMilli(to)
        + " (append mode emits its windows then, final) and drops input older than it as late";
  }

  /**
   * The watermark the statement sets (ms), or null when it changed nothing; refuses any other
   * change.
   */
  static Long newWatermark(
      String location,
      long last,
      StructType schema,
      InternalRow[] before,
      List<InternalRow> after) {
    Map<Long, List<Object>> was = byBatch(schema, List.of(before));
    Map<Long, List<Object>> now = byBatch(schema, after);
    if (after.size() != now.size() || !was.keySet().equals(now.keySet())) {
      throw Errors.badWatermark(
          location,
          "rows can be neither added nor removed; set the"
              + " watermark of the last batch with UPDATE ... SET watermark = ... WHERE batch_id = "
              + last);
    }
    Map<Long, List<String>> changes = new TreeMap<>();
    for (Map.Entry<Long, List<Object>> row : now.entrySet()) {
      List<String> changed = changedColumns(schema, was.get(row.getKey()), row.getValue());
      for (String column : changed) {
        if (!WATERMARK_COLUMNS.contains(column)) {
          throw Errors.badWatermark(
              location,
              "column "
                  + column
                  + " cannot change; only the"
                  + " watermark can be set (watermark, watermark_ms or next_watermark_ms)");
        }
      }
      if (!changed.isEmpty()) changes.put(row.getKey(), changed);
    }
    Long watermark = null;
    for (Map.Entry<Long, List<String>> change : changes.entrySet()) {
      if (change.getKey() != last) {
        throw Errors.badWatermark(
            location,
            "batch "
                + change.getKey()
                + " has run and cannot"
                + " change; only the watermark the query continues from can be set: UPDATE ..."
                + " SET watermark = ... WHERE batch_id = "
                + last);
      }
      for (String column : change.getValue()) {
        long ms = millis(location, column, now.get(last).get(schema.fieldIndex(column)));
        if (watermark != null && watermark != ms) {
          throw Errors.badWatermark(
              location,
              "the statement sets two different watermarks ("
                  + watermark
                  + " and "
                  + ms
                  + " ms); set one column");
        }
        watermark = ms;
      }
    }
    return watermark;
  }

  private static long millis(String location, String column, Object value) {
    if (value == null) throw Errors.badWatermark(location, column + " cannot be NULL");
    // TIMESTAMP values are microseconds
    long ms = column.equals("watermark") ? Math.floorDiv((Long) value, 1000) : (Long) value;
    if (ms < 0) throw Errors.badWatermark(location, column + " cannot lie before 1970");
    return ms;
  }

  private static List<String> changedColumns(
      StructType schema, List<Object> was, List<Object> now) {
    List<String> changed = new ArrayList<>();
    for (int i = 0; i < schema.size(); i++) {
      if (!Objects.equals(was.get(i), now.get(i))) changed.add(schema.fields()[i].name());
    }
    return changed;
  }

  /** Rows by their first column (batch id), as comparable Java values. */
  private static Map<Long, List<Object>> byBatch(StructType schema, List<InternalRow> rows) {
    Map<Long, List<Object>> result = new HashMap<>();
    for (InternalRow row : rows) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < schema.size(); i++) {
        Object value = row.isNullAt(i) ? null : row.get(i, schema.fields()[i].dataType());
        values.add(
            value instanceof MapData map
                ? asMap(map, (MapType) schema.fields()[i].dataType())
                : value);
      }
      result.put(row.getLong(0), values);
    }
    return result;
  }

  private static Map<String, String> asMap(MapData map, MapType type) {
    Map<String, String> result = new TreeMap<>();
    for (int i = 0; i < map.numElements(); i++) {
      Object value =
          map.valueArray().isNullAt(i) ? null : map.valueArray().get(i, type.valueType());
      result.put(String.valueOf(map.keyArray().get(i, type.keyType())), String.valueOf(value));
    }
    return result;
  }
}
