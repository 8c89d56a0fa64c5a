package dev.sparksavepoint.adapters.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.execution.streaming.state.StateSchemaCompatibilityChecker;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.execution.streaming.state.StateStoreProviderId;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Tuple2;

/**
 * Spark's {@code statestore} data source, which Spark 3.5 does not have (it came with 4.0), for
 * the options the tool reads with: {@code path}, {@code batchId}, {@code operatorId}, and {@code
 * storeName} or {@code joinSide}. It reads through Spark 3.5's own providers (each task opens its
 * partition's store at version {@code batchId + 1} and lists it), with the schema from the
 * store's own schema file, and gives the rows 4.0's reader gives: {@code key}, {@code value},
 * {@code partition_id}. Other options (change feeds, transformWithState state) are refused with
 * {@code SAVEPOINT_SPARK_VERSION}.
 */
public final class StateDataSource {
  private static final Set<String> KNOWN =
      Set.of("path", "batchid", "operatorid", "storename", "joinside");

  /** The nested schema of the state {@code options} name. */
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    StateRead read = StateRead.of(options);
    return schema(read.keySchema(), read.valueSchema());
  }

  /** The table of the state {@code options} name, with {@code schema}. */
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> options) {
    return new StateTable(schema, StateRead.of(new CaseInsensitiveStringMap(options)));
  }

  static StructType schema(StructType key, StructType value) {
    return new StructType(
        new StructField[] {
          new StructField("key", key, true, org.apache.spark.sql.types.Metadata.empty()),
          new StructField("value", value, true, org.apache.spark.sql.types.Metadata.empty()),
          new StructField(
              "partition_id",
              DataTypes.IntegerType,
              true,
              org.apache.spark.sql.types.Metadata.empty())
        });
  }

  /** Refuses options this reader does not know (4.0's reader does more). */
  static void checkOptions(CaseInsensitiveStringMap options) {
    for (String name : options.keySet()) {
      if (!KNOWN.contains(name.toLowerCase(java.util.Locale.ROOT))) {
        throw Spark4Only.refuse("reading state with the option " + name);
      }
    }
  }

  /** The key and value schema a store's schema file records (partition 0, as Spark checks it). */
  static Tuple2<StructType, StructType> storeSchema(
      String stateLocation, long operatorId, String storeName, Configuration hadoopConf) {
    StateStoreProviderId id =
        new StateStoreProviderId(
            new StateStoreId(
                stateLocation,
                operatorId,
                org.apache.spark.sql.execution.streaming.state.StateStore
                    .PARTITION_ID_TO_CHECK_SCHEMA(),
                storeName),
            java.util.UUID.randomUUID());
    return new StateSchemaCompatibilityChecker(id, hadoopConf).readSchemaFile();
  }

  /** How many partitions operator {@code operatorId} has: its highest partition folder + 1. */
  static int partitions(String stateLocation, long operatorId, Configuration hadoopConf) {
    Path folder = new Path(stateLocation, Long.toString(operatorId));
    try {
      FileSystem fs = folder.getFileSystem(hadoopConf);
      int n = 0;
      for (FileStatus status : fs.listStatus(folder)) {
        String name = status.getPath().getName();
        if (status.isDirectory() && name.matches("\\d+"))
          n = Math.max(n, Integer.parseInt(name) + 1);
      }
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static SparkSession session() {
    return SparkSession.active();
  }
}
