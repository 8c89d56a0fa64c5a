package dev.sparksavepoint.adapters;

import org.apache.hadoop.fs.Path;
import org.apache.spark.io.CompressionCodec;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.NextIterator;
import scala.Enumeration;
import scala.Tuple4;

/**
 * Spark's own reader of HDFS-backed delta files, told which file of a version to read: Spark
 * 3.5 has none (its state source has no change feed), so HDFS-backed state is read through its
 * provider only.
 */
public final class HdfsFileReader {
  private HdfsFileReader() {}

  /** True when this Spark has the reader (and HDFS-backed stores our code can build on it). */
  public static boolean available() {
    return false;
  }

  /** Null: this Spark has no such reader. */
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
    return null;
  }
}
