package dev.sparksavepoint.adapters;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;

/**
 * The file manager an HDFS-backed provider reads its files with: Spark 4.1 and later, the
 * provider's own ({@code fm}), which verifies the files' checksums when the store's conf asks
 * for them ({@code ChecksumCheckpointFileManager}), as Spark's own reads do.
 */
public final class HdfsFileManagers {
  private HdfsFileManagers() {}

  /** The file manager of {@code provider}'s partition folder {@code folder}. */
  public static CheckpointFileManager of(
      HDFSBackedStateStoreProvider provider, Path folder, Configuration hadoop) {
    return provider.fm();
  }
}
