package dev.sparksavepoint.adapters;

import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.checkpointing.OffsetSeqLog;
import org.apache.spark.sql.execution.streaming.checkpointing.OffsetSeqMetadata;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The confs a checkpoint's offset log recorded for a batch, laid over a SQL conf as its query
 * restores them: Spark 4.0 and later, whose {@code setSessionConf} takes the SQL conf.
 */
public final class RecordedConf {
  private RecordedConf() {}

  /** Sets in {@code conf} what {@code offsets/<batchId>} of {@code checkpoint} recorded. */
  public static void overlay(SparkSession spark, String checkpoint, long batchId, SQLConf conf) {
    OffsetSeqLog log =
        ScalaDefaults.construct(
            OffsetSeqLog.class, spark, new Path(checkpoint, "offsets").toString());
    var metadata = log.offsetSeqMetadataForBatchId(batchId); // OffsetSeqMetadataBase since 4.2
    if (metadata.isDefined()) OffsetSeqMetadata.setSessionConf(metadata.get(), conf);
  }
}
