package dev.sparksavepoint.adapters;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.spark.sql.execution.streaming.state.SchemaHelper;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

/**
 * A store's schema file ({@code <partition>/_metadata/schema}, format v1 or v2) read with
 * Spark's own reader: Spark 3.5, whose reader gives one key and value schema.
 */
public final class SchemaFiles {
  private SchemaFiles() {}

  /** The key and value schema in the file {@code in} reads after its version line {@code version}. */
  public static StructType[] keyAndValue(String version, FSDataInputStream in) {
    Tuple2<StructType, StructType> schemas =
        SchemaHelper.SchemaReader$.MODULE$.createSchemaReader(version).read(in);
    return new StructType[] {schemas._1(), schemas._2()};
  }
}
