package dev.sparksavepoint.adapters;

import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.RuntimeConfig;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.OffsetSeqLog;
import org.apache.spark.sql.execution.streaming.OffsetSeqMetadata;
import org.apache.spark.sql.internal.SQLConf;
import scala.Option;

/**
 * The confs a checkpoint's offset log recorded for a batch, laid over a SQL conf as its query
 * restores them: Spark 3.5, whose {@code setSessionConf} takes a {@code RuntimeConfig}.
 */
public final class RecordedConf {
  private RecordedConf() {}

  /** Sets in {@code conf} what {@code offsets/<batchId>} of {@code checkpoint} recorded. */
  public static void overlay(SparkSession spark, String checkpoint, long batchId, SQLConf conf) {
    OffsetSeqLog log = new OffsetSeqLog(spark, new Path(checkpoint, "offsets").toString());
    Option<OffsetSeqMetadata> metadata = log.offsetSeqMetadataForBatchId(batchId);
    if (metadata.isDefined()) {
      OffsetSeqMetadata.setSessionConf(metadata.get(), new RuntimeConfig(conf));
    }
  }
}
