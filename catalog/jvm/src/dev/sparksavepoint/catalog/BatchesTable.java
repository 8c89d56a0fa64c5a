package dev.sparksavepoint.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.StructType;

/**
 * {@code <catalog>.query.batches}: one row per batch the offsets log still holds (up to the
 * batch of {@code VERSION AS OF}, else all, the planned and not committed one too): when it was
 * planned and committed, its batch timestamp, the event-time watermark it ran with and the one
 * its commit set for the next batch, and the confs the query recorded (provider, shuffle
 * partitions, format versions).
 */
final class BatchesTable extends LocalTable {
  static final String NAMESPACE = "query";
  static final String NAME = "batches";
  static final StructType SCHEMA = StructType.fromDDL(String.join(", ",
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

  /** {@code upTo}: the last batch to list, or null for every batch. */
  BatchesTable(String catalog, Checkpoint checkpoint, Long upTo) {
    super(catalog, NAMESPACE + "." + NAME, SCHEMA,
        "it lists the checkpoint's batches and is read-only");
    this.checkpoint = checkpoint;
    this.upTo = upTo;
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
      rows.add(new GenericInternalRow(new Object[] {
          b, committed, timestamp(checkpoint.planTimeMs(b)),
          committed ? timestamp(checkpoint.commitTimeMs(b)) : null,
          timestamp(metadata.path("batchTimestampMs").asLong(-1)),
          watermark > 0 ? timestamp(watermark) : null, watermark,
          committed ? nextWatermark(b) : null,
          partitions == null ? null : Integer.valueOf(partitions),
          str(MetadataTable.shortProvider(conf.getOrDefault(
              "spark.sql.streaming.stateStore.providerClass", ""))),
          map(conf)}));
    }
    return rows.toArray(new InternalRow[0]);
  }

  private Long nextWatermark(long batchId) {
    try {
      JsonNode commit = checkpoint.commitLog().metadata(batchId);
      return commit.has("nextBatchWatermarkMs") ? commit.get("nextBatchWatermarkMs").asLong()
          : null;
    } catch (IOException e) {
      throw Errors.corruptFile(checkpoint.location(), CheckpointLog.COMMITS + "/" + batchId,
          "batch " + batchId, e, "Restore the file from a copy of the checkpoint.");
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
