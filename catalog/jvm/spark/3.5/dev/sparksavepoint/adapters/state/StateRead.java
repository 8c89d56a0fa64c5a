package dev.sparksavepoint.adapters.state;

import java.io.Serializable;
import java.util.Arrays;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.RuntimeConfig;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.OffsetSeqLog;
import org.apache.spark.sql.execution.streaming.OffsetSeqMetadata;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.util.SerializableConfiguration;
import scala.Option;
import scala.Tuple2;

/**
 * One state to read on Spark 3.5, resolved on the driver and sent to the tasks: the store, its
 * version, its schemas, and the conf its query opened it with (the session's overlaid with what
 * the offset log recorded for the batch, as 4.0's reader opens it).
 *
 * @param stateLocation the checkpoint's {@code state} folder
 * @param storeName the store read ({@code <side>-keyWithIndexToValue} for a join side)
 * @param joinSide true when a join side is read: the stored key ends in an index and the stored
 *     value may end in {@code matched}, both left out of the rows
 * @param storedKey the key schema of the store; {@code storedValue} likewise
 */
record StateRead(
    String stateLocation,
    long operatorId,
    String storeName,
    boolean joinSide,
    long version,
    int partitions,
    StructType storedKey,
    StructType storedValue,
    StateStoreConf storeConf,
    SerializableConfiguration hadoopConf)
    implements Serializable {

  static StateRead of(CaseInsensitiveStringMap options) {
    StateDataSource.checkOptions(options);
    String path = options.get("path");
    if (path == null) throw new IllegalArgumentException("the option path is required");
    SparkSession spark = StateDataSource.session();
    long batchId = Long.parseLong(options.get("batchId"));
    long operatorId = Long.parseLong(options.getOrDefault("operatorId", "0"));
    String side = options.get("joinSide");
    String store =
        side == null ? options.getOrDefault("storeName", "default") : side + "-keyWithIndexToValue";
    SQLConf conf = spark.sessionState().conf().clone();
    Option<OffsetSeqMetadata> recorded =
        new OffsetSeqLog(spark, new Path(path, "offsets").toString())
            .offsetSeqMetadataForBatchId(batchId);
    if (recorded.isDefined()) {
      OffsetSeqMetadata.setSessionConf(recorded.get(), new RuntimeConfig(conf));
    }
    org.apache.hadoop.conf.Configuration hadoop = spark.sessionState().newHadoopConf();
    String stateLocation = new Path(path, "state").toString();
    Tuple2<StructType, StructType> schemas =
        StateDataSource.storeSchema(stateLocation, operatorId, store, hadoop);
    return new StateRead(
        stateLocation,
        operatorId,
        store,
        side != null,
        batchId + 1,
        StateDataSource.partitions(stateLocation, operatorId, hadoop),
        schemas._1(),
        schemas._2(),
        StateStoreConf.apply(conf),
        new SerializableConfiguration(hadoop));
  }

  /** The key of the rows: the stored key, without a join side's index. */
  StructType keySchema() {
    return joinSide
        ? new StructType(Arrays.copyOf(storedKey.fields(), storedKey.size() - 1))
        : storedKey;
  }

  /** The value of the rows: the stored value, without a join side's {@code matched}. */
  StructType valueSchema() {
    if (!joinSide) return storedValue;
    return new StructType(
        Arrays.stream(storedValue.fields())
            .filter(f -> !f.name().equals("matched"))
            .toArray(StructField[]::new));
  }
}
