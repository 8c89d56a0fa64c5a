package dev.sparksavepoint.adapters;

import java.util.Map;

/**
 * Session settings Spark's state data source needs to read outside a streaming query: Spark
 * 4.0 to 4.2, whose HDFS-backed provider reports each snapshot it loads to the query's
 * {@code StateStoreCoordinator}, and fails the read in an application that has none (a Thrift
 * server, a job that ran no query: "Cannot find endpoint: spark://StateStoreCoordinator").
 */
public final class ReaderSettings {
  private ReaderSettings() {}

  /** The settings, by name. */
  public static Map<String, String> needed() {
    return Map.of("spark.sql.streaming.stateStore.coordinatorReportSnapshotUploadLag", "false");
  }
}
