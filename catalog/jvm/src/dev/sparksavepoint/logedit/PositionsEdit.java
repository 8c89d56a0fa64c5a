package dev.sparksavepoint.logedit;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.FileLogs;
import dev.sparksavepoint.checkpoint.SourcePositions;
import dev.sparksavepoint.checkpoint.SourcePositions.Key;
import dev.sparksavepoint.checkpoint.SourcePositions.Position;
import dev.sparksavepoint.commit.CheckpointCommit;
import dev.sparksavepoint.commit.EditReport;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.store.StoreBatch;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Rewinds or advances source positions: the rows of {@code sources.offsets} after an UPDATE or
 * MERGE become batch N+1, whose offsets entry is offsets/N with the changed positions set
 * ({@link SourcePositions#withOffsets}) and whose state is batch N's, carried over unchanged
 * through Spark's providers. The restarted query starts its next batch at the new positions:
 * it reads again what lies after a rewound position, and skips what lies before an advanced
 * one, with its state intact. The same transaction as a state write: validated first, batch
 * N+1 claimed, offsets/N+1 written at the claim, commits/N+1 last.
 *
 * <p>Only the {@code offset} of a Kafka topic partition, of a file source (its log index, at
 * most its log's last entry: files re-read are those its log lists after the new index) or of
 * a bare-number source (rate: seconds since its start) can change; rows can be neither added
 * nor removed.
 */
public final class PositionsEdit {
  static final String TABLE = "sources.offsets";

  /** A row of the table as the statement left it. */
  public record Row(int sourceId, String source, String topic, Integer partition, Long offset)
      implements Serializable {
    Key key() {
      return new Key(sourceId, topic, partition);
    }
  }

  private PositionsEdit() {}

  /**
   * The rows of {@code sources.offsets} (columns {@code batch_id, source_id, source,
   * description, topic, partition, offset, offset_json}) as the edit reads them.
   */
  public static List<Row> rowsOf(List<InternalRow> rows) {
    List<Row> result = new ArrayList<>();
    for (InternalRow r : rows) {
      result.add(
          new Row(
              r.getInt(1),
              r.isNullAt(2) ? null : r.getUTF8String(2).toString(),
              r.isNullAt(4) ? null : r.getUTF8String(4).toString(),
              r.isNullAt(5) ? null : r.getInt(5),
              r.isNullAt(6) ? null : r.getLong(6)));
    }
    return result;
  }

  /**
   * Commits the positions in {@code rows} (the whole table, read at batch {@code readBatch})
   * as a new batch when any differs; reports what it did.
   */
  public static EditReport apply(
      SparkSession spark, String location, long readBatch, List<Row> rows) {
    Checkpoint ckpt = Checkpoint.open(location, spark.sessionState().newHadoopConf());
    long last = LogEdits.lastBatch(spark, ckpt, "sources", "offsets", readBatch);
    List<Position> current = ckpt.sourcePositions(last);
    Map<Key, Long> changed = changes(ckpt, current, rows);
    long batch = CheckpointLog.nextBatch(last);
    if (changed.isEmpty()) {
      return EditReport.record(new EditReport(ckpt.location(), TABLE, -1, 0, 0));
    }
    byte[] entry =
        LogEdits.nextEntry(ckpt, last, bytes -> SourcePositions.withOffsets(bytes, changed));
    boolean bridge = rewindsFileSource(current, changed);
    StoreBatch plan = StoreBatch.carryOver(spark, ckpt, last);
    CheckpointCommit tx = CheckpointCommit.begin(plan, what(batch), entry);
    try {
      List<PartitionCommit> commits = LogEdits.carriedOver(plan, batch);
      if (bridge) tx.planNext(entry);
      tx.finish(commits);
    } catch (RuntimeException e) {
      tx.rollback();
      throw e;
    }
    if (bridge) {
      // On restart Spark asks a file source (a V1 source) for its last batch again, from the
      // positions before it, which must not lie after the new ones: a second batch repeats them.
      long first = batch;
      batch = CheckpointLog.nextBatch(batch);
      StoreBatch again = StoreBatch.carryOver(spark, ckpt.refreshed(), first);
      CheckpointCommit second = CheckpointCommit.begin(again, what(batch), true);
      try {
        second.finish(LogEdits.carriedOver(again, batch));
      } catch (RuntimeException e) {
        second.rollback(); // offsets/N+2 stays: a restarted query runs it between equal positions
        throw e;
      }
    }
    return EditReport.record(new EditReport(ckpt.location(), TABLE, batch, changed.size(), 0));
  }

  private static String what(long batch) {
    return "set source positions of batch " + batch;
  }

  /** True when a file source's position moves back. */
  private static boolean rewindsFileSource(List<Position> current, Map<Key, Long> changed) {
    for (Position p : current) {
      Long to = changed.get(key(p));
      if (p.kind().equals(SourcePositions.FILE) && to != null && to < p.offset()) return true;
    }
    return false;
  }

  private static Key key(Position p) {
    return new Key(p.sourceId(), p.topic(), p.partition());
  }

  /** The positions {@code rows} change, validated against the {@code positions} of now. */
  static Map<Key, Long> changes(Checkpoint ckpt, List<Position> positions, List<Row> rows) {
    Map<Key, Position> current = new LinkedHashMap<>();
    for (Position p : positions) current.put(key(p), p);
    Map<Key, Long> changed = new LinkedHashMap<>();
    for (Row row : rows) {
      Position was = current.remove(row.key());
      if (was == null || !was.kind().equals(row.source()) && !isRate(was, row)) {
        throw refused(
            ckpt,
            row.key(),
            "the statement adds a row or changes its source,"
                + " topic or partition; only the offset column can change");
      }
      if (changed.containsKey(row.key())) {
        throw refused(ckpt, row.key(), "the statement gives this position twice");
      }
      if (Objects.equals(was.offset(), row.offset())) continue;
      check(ckpt, was, row);
      changed.put(row.key(), row.offset());
    }
    if (!current.isEmpty()) {
      throw refused(
          ckpt,
          current.keySet().iterator().next(),
          "the statement removes this" + " row; a source's positions cannot be removed, only set");
    }
    return changed;
  }

  /** The table names a bare-number source {@code rate} when its log says so. */
  private static boolean isRate(Position was, Row row) {
    return was.kind().equals(SourcePositions.LONG) && "rate".equals(row.source());
  }

  private static void check(Checkpoint ckpt, Position was, Row row) {
    if (row.offset() == null) throw refused(ckpt, row.key(), "the offset cannot be NULL");
    long offset = row.offset();
    switch (was.kind()) {
      case SourcePositions.KAFKA, SourcePositions.LONG -> {
        if (offset < 0) throw refused(ckpt, row.key(), "an offset cannot be negative");
        long started = FileLogs.rateStartMs(ckpt, row.sourceId());
        long elapsed = started < 0 ? -1 : (System.currentTimeMillis() - started) / 1000;
        if (started >= 0 && offset > elapsed) {
          throw refused(
              ckpt,
              row.key(),
              "a rate source's offset counts the seconds since it"
                  + " started ("
                  + elapsed
                  + " so far) and cannot lie ahead of its clock");
        }
      }
      case SourcePositions.FILE -> {
        long lastEntry = lastLogEntry(ckpt, row.sourceId());
        if (offset < -1 || offset > lastEntry) {
          throw refused(
              ckpt,
              row.key(),
              "a file source's offset is an index of its log"
                  + " sources/"
                  + row.sourceId()
                  + "/, from -1 (before its first entry) to "
                  + lastEntry
                  + " (its last); files it never listed cannot be skipped this way");
        }
      }
      default ->
          throw refused(
              ckpt,
              row.key(),
              "the position of a "
                  + was.kind()
                  + " source cannot be set (only Kafka, file and bare-number sources such as"
                  + " rate)");
    }
  }

  /** The last entry of a file source's log {@code sources/<i>/}, or -1 when it has none. */
  private static long lastLogEntry(Checkpoint ckpt, int sourceId) {
    Path log = FileLogs.sourceLog(ckpt, sourceId);
    long last = -1;
    try {
      if (!ckpt.fileSystem().exists(log)) return -1;
      for (FileStatus f : ckpt.fileSystem().listStatus(log)) {
        String name = f.getPath().getName().replace(".compact", "");
        if (name.matches("\\d+")) last = Math.max(last, Long.parseLong(name));
      }
    } catch (IOException e) {
      throw Errors.io(ckpt.location(), e);
    }
    return last;
  }

  private static RuntimeException refused(Checkpoint ckpt, Key key, String why) {
    String where =
        "source "
            + key.sourceId()
            + (key.topic() == null ? "" : " (" + key.topic() + "/" + key.partition() + ")");
    return Errors.badSourcePosition(ckpt.location(), where, why);
  }
}
