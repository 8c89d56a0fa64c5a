package dev.sparksavepoint.adapters;

import org.apache.hadoop.fs.Path;
import org.apache.spark.io.CompressionCodec;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreChangeDataReader;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.NextIterator;
import scala.Enumeration;
import scala.Tuple4;

/**
 * Spark's own reader of HDFS-backed delta files ({@code HDFSBackedStateStoreChangeDataReader},
 * the reader of {@code readChangeFeed}), told which file of a version to read: the
 * {@code .delta} or the {@code .snapshot} (one layout; a snapshot holds puts only). Spark 4.2
 * and later, whose reader takes the store id and conf.
 */
public final class HdfsFileReader {
  private HdfsFileReader() {}

  /** True when this Spark has the reader (and HDFS-backed stores our code can build on it). */
  public static boolean available() {
    return true;
  }

  /**
   * The records (kind, key, value or null for a removal, version) of {@code <version>.<suffix>}
   * in partition folder {@code folder}; null when this Spark has no such reader.
   */
  public static NextIterator<Tuple4<Enumeration.Value, UnsafeRow, UnsafeRow, Object>> open(
      StateStoreId id,
      CheckpointFileManager fm,
      Path folder,
      long version,
      String suffix,
      CompressionCodec codec,
      StructType keySchema,
      StructType valueSchema,
      StateStoreConf conf) {
    return new HDFSBackedStateStoreChangeDataReader(
        id, fm, folder, version, version, codec, keySchema, valueSchema, conf) {
      @Override
      public String changelogSuffix() {
        return suffix;
      }
    };
  }
}
