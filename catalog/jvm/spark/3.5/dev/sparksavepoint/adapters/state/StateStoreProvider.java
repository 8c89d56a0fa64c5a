package dev.sparksavepoint.adapters.state;

import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.execution.streaming.state.StateStoreProviderId;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/** The provider of one store partition: Spark 3.5's, opened and used as 4.0's is. */
public final class StateStoreProvider {
  private final org.apache.spark.sql.execution.streaming.state.StateStoreProvider spark;

  private StateStoreProvider(
      org.apache.spark.sql.execution.streaming.state.StateStoreProvider spark) {
    this.spark = spark;
  }

  /**
   * Spark's provider of {@code id}, initialized as the query initializes it (Spark 4.0's
   * signature; on 3.5 without column families or schema provider, no prefix key).
   */
  public static StateStoreProvider createAndInit(
      StateStoreProviderId id,
      StructType keySchema,
      StructType valueSchema,
      KeyStateEncoderSpec keyStateEncoderSpec,
      boolean useColumnFamilies,
      StateStoreConf conf,
      Configuration hadoopConf,
      boolean useMultipleValuesPerKey,
      Option<StateSchemaProvider> stateSchemaProvider) {
    if (useColumnFamilies) throw Spark4Only.refuse("a store with column families");
    return new StateStoreProvider(
        org.apache.spark.sql.execution.streaming.state.StateStoreProvider.createAndInit(
            id, keySchema, valueSchema, 0, conf, hadoopConf));
  }

  /** Spark's own provider. */
  public org.apache.spark.sql.execution.streaming.state.StateStoreProvider spark() {
    return spark;
  }

  public StateStoreId stateStoreId() {
    return spark.stateStoreId();
  }

  /** Version {@code version} to write version+1 ({@code uniqueId}: none on 3.5). */
  public StateStore getStore(long version, Option<String> uniqueId) {
    noUniqueId(uniqueId);
    return new StateStore(spark.getStore(version));
  }

  /** Version {@code version} to read ({@code uniqueId}: none on 3.5). */
  public ReadStateStore getReadStore(long version, Option<String> uniqueId) {
    noUniqueId(uniqueId);
    return new ReadStateStore(spark.getReadStore(version));
  }

  public void close() {
    spark.close();
  }

  private static void noUniqueId(Option<String> uniqueId) {
    if (uniqueId.isDefined() && uniqueId.get() != null) {
      throw Spark4Only.refuse("a checkpoint of format v2 (state checkpoint ids)");
    }
  }
}
