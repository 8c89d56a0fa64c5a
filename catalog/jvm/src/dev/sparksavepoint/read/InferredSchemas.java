package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.Checkpoint;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.spark.sql.types.StructType;

/**
 * The schemas Spark's state reader inferred for committed batches, remembered by what decides
 * them: the checkpoint, the reader's options (operator, store, batch, ...) and the modification
 * time of the batch's commit entry. Inference reads the operator metadata, the schema files and
 * the logs (each a round trip on HDFS or S3), and one statement asks for a state's schema up to
 * three times (loading the table, checking the rows' placement, planning the batch). A batch's
 * schema files do not change once it is committed; a batch written again (after an undo or a
 * repair) has a new commit entry, so a new key. At most {@link #SIZE} schemas, least recently
 * used dropped first; a failed inference is not remembered.
 */
final class InferredSchemas {
  static final int SIZE = 256;

  private static final Map<String, StructType> KNOWN =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, StructType> eldest) {
          return size() > SIZE;
        }
      };

  private InferredSchemas() {}

  /**
   * The schema of the read {@code options} of batch {@code batchId} of {@code ckpt}: remembered,
   * or {@code infer}red (and remembered when the batch is committed).
   */
  static StructType of(
      Checkpoint ckpt, long batchId, Map<String, String> options, Supplier<StructType> infer) {
    if (!ckpt.isCommitted(batchId)) return infer.get();
    String key = ckpt.location() + "@" + ckpt.commitTimeMs(batchId) + new TreeMap<>(options);
    synchronized (KNOWN) {
      StructType known = KNOWN.get(key);
      if (known != null) return known;
    }
    StructType schema = infer.get();
    synchronized (KNOWN) {
      KNOWN.put(key, schema);
    }
    return schema;
  }
}
