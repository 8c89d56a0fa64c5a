package dev.sparksavepoint.adapters;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager$;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;

/**
 * The file manager an HDFS-backed provider reads its files with: Spark 3.5 and 4.0, whose
 * provider keeps its own private (and writes no file checksums): a plain one for the folder.
 */
public final class HdfsFileManagers {
  private HdfsFileManagers() {}

  /** The file manager of {@code provider}'s partition folder {@code folder}. */
  public static CheckpointFileManager of(
      HDFSBackedStateStoreProvider provider, Path folder, Configuration hadoop) {
    return CheckpointFileManager$.MODULE$.create(folder, hadoop);
  }
}
