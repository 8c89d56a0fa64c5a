package dev.sparksavepoint.adapters;

/**
 * Whether Spark's state data source must be kept from reporting to a {@code
 * StateStoreCoordinator} to read outside a streaming query: yes on Spark 3.5 to 4.2, whose
 * HDFS-backed provider reports each snapshot it loads to the query's coordinator, and fails the
 * read in an application that has none (a Thrift server, a job that ran no query: "Cannot find
 * endpoint: spark://StateStoreCoordinator"). Spark 3.5's providers report no snapshot, and its
 * jar reads through a reader of the tool's own: the settings change nothing there.
 */
public final class ReaderSettings {
  private ReaderSettings() {}

  /** True when reads need the settings that keep providers from reporting to a coordinator. */
  public static boolean withoutCoordinator() {
    return true;
  }
}
