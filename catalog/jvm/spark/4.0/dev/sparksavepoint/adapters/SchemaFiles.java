package dev.sparksavepoint.adapters;

import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.spark.sql.execution.streaming.state.SchemaHelper;
import org.apache.spark.sql.execution.streaming.state.StateStoreColFamilySchema;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A store's schema file ({@code <partition>/_metadata/schema}, format v1 or v2) read with
 * Spark's own reader: Spark 4.0 and later, whose reader gives column family schemas.
 */
public final class SchemaFiles {
  private SchemaFiles() {}

  /**
   * The key and value schema of the first column family in the file {@code in} reads after its
   * version line {@code version}; null when it lists none.
   */
  public static StructType[] keyAndValue(String version, FSDataInputStream in) {
    List<StateStoreColFamilySchema> schemas =
        CollectionConverters.asJava(
            SchemaHelper.SchemaReader$.MODULE$.createSchemaReader(version).read(in));
    if (schemas.isEmpty()) return null;
    return new StructType[] {schemas.get(0).keySchema(), schemas.get(0).valueSchema()};
  }
}
