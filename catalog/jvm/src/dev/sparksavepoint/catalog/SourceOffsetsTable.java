package dev.sparksavepoint.catalog;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.FileLogs;
import dev.sparksavepoint.checkpoint.SourcePositions;
import dev.sparksavepoint.checkpoint.SourcePositions.Position;
import dev.sparksavepoint.logedit.PositionsEdit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * {@code <catalog>.sources.offsets}: where each source of the query stands after batch N (the
 * last committed, or the batch of {@code VERSION AS OF}): one row per source, and per topic
 * partition for Kafka ({@link SourcePositions}). {@code offset} is the number the source counts
 * in (a Kafka offset, a file source's log index, a rate source's seconds); {@code offset_json}
 * the source's whole offset as Spark wrote it.
 */
final class SourceOffsetsTable extends EditableLocalTable {
  static final String NAMESPACE = "sources";
  static final String NAME = "offsets";
  static final StructType SCHEMA =
      StructType.fromDDL(
          String.join(
              ", ",
              "batch_id BIGINT",
              "source_id INT",
              "source STRING",
              "description STRING",
              "topic STRING",
              "`partition` INT",
              "`offset` BIGINT",
              "offset_json STRING"));

  private final Checkpoint checkpoint;
  private final long batchId;

  SourceOffsetsTable(String catalog, Checkpoint checkpoint, long batchId) {
    super(
        catalog,
        NAMESPACE + "." + NAME,
        SCHEMA,
        "set positions with UPDATE or MERGE; rows can be neither added nor removed");
    this.checkpoint = checkpoint;
    this.batchId = batchId;
  }

  @Override
  protected String editDescription() {
    return "set source positions of '" + checkpoint.location() + "'";
  }

  /** The statement's rows: commits the changed positions as a new batch. */
  @Override
  protected void apply(List<InternalRow> rows) {
    PositionsEdit.apply(
        SparkSession.active(), checkpoint.location(), batchId, PositionsEdit.rowsOf(rows));
  }

  @Override
  protected InternalRow[] rows() {
    List<InternalRow> rows = new ArrayList<>();
    for (Position p : checkpoint.sourcePositions(batchId)) {
      String kind = kind(p);
      rows.add(
          new GenericInternalRow(
              new Object[] {
                batchId,
                p.sourceId(),
                str(kind),
                str(describe(p, kind)),
                str(p.topic()),
                p.partition(),
                p.offset(),
                str(p.json())
              }));
    }
    return rows.toArray(new InternalRow[0]);
  }

  /**
   * The source's kind; a bare-number offset is the rate source's when its log holds the rate
   * source's start time ({@code v1} and a number), else stays {@code long}.
   */
  private String kind(Position p) {
    if (!p.kind().equals(SourcePositions.LONG)) return p.kind();
    return FileLogs.rateStartMs(checkpoint, p.sourceId()) >= 0 ? "rate" : SourcePositions.LONG;
  }

  private String describe(Position p, String kind) {
    String log = "sources/" + p.sourceId() + "/";
    return switch (kind) {
      case SourcePositions.KAFKA ->
          "Kafka topic " + p.topic() + ", partition " + p.partition() + ": the next offset to read";
      case SourcePositions.FILE ->
          "file source: the files of log entries "
              + log
              + "0.."
              + p.offset()
              + " are read (see "
              + catalog
              + ".sources.files)";
      case "rate" ->
          "rate source started at "
              + Instant.ofEpochMilli(FileLogs.rateStartMs(checkpoint, p.sourceId()))
              + ": seconds since its start";
      case SourcePositions.RATE_MICRO_BATCH -> "rate-micro-batch source: rows generated so far";
      case SourcePositions.LONG -> "a source counting in one number (socket, memory)";
      case SourcePositions.NONE ->
          "no position yet: the source had no data when the batch" + " was planned";
      default -> "a source whose offset format is not known here: see offset_json";
    };
  }
}
