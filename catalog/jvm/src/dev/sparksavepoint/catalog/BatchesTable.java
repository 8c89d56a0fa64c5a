package dev.sparksavepoint.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.logedit.WatermarkEdit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * {@code <catalog>.query.batches}: one row per batch the offsets log still holds (up to the
 * batch of {@code VERSION AS OF}, else all, the planned and not committed one too): when it was
 * planned and committed, its batch timestamp, the event-time watermark it ran with and the one
 * its commit set for the next batch, and the confs the query recorded (provider, shuffle
 * partitions, format versions). UPDATE or MERGE of the last batch's {@code watermark} (or
 * {@code watermark_ms}, {@code next_watermark_ms}) sets the watermark the query continues from
 * ({@link WatermarkEdit}).
 */
final class BatchesTable extends EditableLocalTable {
  static final String NAMESPACE = "query";
  static final String NAME = "batches";
  static final StructType SCHEMA =
      StructType.fromDDL(
          String.join(
              ", ",
              "batch_id BIGINT",
              "committed BOOLEAN",
              "planned_at TIMESTAMP",
              "committed_at TIMESTAMP",
              "batch_timestamp TIMESTAMP",
              "watermark TIMESTAMP",
              "watermark_ms BIGINT",
              "next_watermark_ms BIGINT",
              "shuffle_partitions INT",
              "provider STRING",
              "conf MAP<STRING, STRING>"));

  private final Checkpoint checkpoint;
  private final Long upTo;
  private final long readBatch;

  /**
   * {@code upTo}: the last batch to list, or null for every batch; {@code readBatch}: the last
   * committed batch when the table was loaded.
   */
  BatchesTable(String catalog, Checkpoint checkpoint, Long upTo, long readBatch) {
    super(
        catalog,
        NAMESPACE + "." + NAME,
        SCHEMA,
        "set the watermark with UPDATE or MERGE; rows can be neither added nor removed");
    this.checkpoint = checkpoint;
    this.upTo = upTo;
    this.readBatch = readBatch;
  }

  @Override
  protected String editDescription() {
    return "set the watermark of '" + checkpoint.location() + "'";
  }

  /** The statement's rows: commits the watermark set on the last batch's row as a new batch. */
  @Override
  protected void apply(List<InternalRow> rows) {
    InternalRow[] before =
        new BatchesTable(catalog, checkpoint.refreshed(), upTo, readBatch).rows();
    WatermarkEdit.apply(
        SparkSession.active(), checkpoint.location(), readBatch, SCHEMA, before, rows);
  }

  @Override
  protected InternalRow[] rows() {
    List<InternalRow> rows = new ArrayList<>();
    for (long b : checkpoint.plannedBatches()) {
      if (upTo != null && b > upTo) break;
      JsonNode metadata = checkpoint.offsetMetadata(b);
      boolean committed = checkpoint.isCommitted(b);
      Map<String, String> conf = new TreeMap<>(checkpoint.recordedConf(b));
      long watermark = metadata.path("batchWatermarkMs").asLong(0);
      String partitions = conf.get("spark.sql.shuffle.partitions");
      rows.add(
          new GenericInternalRow(
              new Object[] {
                b,
                committed,
                timestamp(checkpoint.planTimeMs(b)),
                committed ? timestamp(checkpoint.commitTimeMs(b)) : null,
                timestamp(metadata.path("batchTimestampMs").asLong(-1)),
                watermark > 0 ? timestamp(watermark) : null,
                watermark,
                committed ? nextWatermark(b) : null,
                partitions == null ? null : Integer.valueOf(partitions),
                str(
                    MetadataTable.shortProvider(
                        conf.getOrDefault(StoreProviders.PROVIDER_CONF, ""))),
                map(conf)
              }));
    }
    return rows.toArray(new InternalRow[0]);
  }

  private Long nextWatermark(long batchId) {
    try {
      JsonNode commit = checkpoint.commitLog().metadata(batchId);
      return commit.has("nextBatchWatermarkMs")
          ? commit.get("nextBatchWatermarkMs").asLong()
          : null;
    } catch (IOException e) {
      throw Errors.corruptFile(
          checkpoint.location(),
          CheckpointLog.COMMITS + "/" + batchId,
          "batch " + batchId,
          e,
          "Restore the file from a copy of the checkpoint.");
    }
  }

  private static ArrayBasedMapData map(Map<String, String> conf) {
    Object[] keys = new Object[conf.size()];
    Object[] values = new Object[conf.size()];
    int i = 0;
    for (Map.Entry<String, String> e : conf.entrySet()) {
      keys[i] = str(e.getKey());
      values[i++] = str(e.getValue());
    }
    return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
  }
}
