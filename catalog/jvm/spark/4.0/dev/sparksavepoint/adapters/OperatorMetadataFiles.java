package dev.sparksavepoint.adapters;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadata;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadataReader;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadataV1;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadataV2;
import org.apache.spark.sql.execution.streaming.state.StateStoreMetadata;
import scala.Option;

/**
 * An operator's metadata files ({@code state/<op>/_metadata}), read by Spark's reader: Spark
 * 4.0 and 4.1, whose metadata interface does not list the stores.
 */
public final class OperatorMetadataFiles {
  private OperatorMetadataFiles() {}

  /**
   * The metadata of the operator in {@code opDir} in format {@code version} (1, or 2: the entry
   * for {@code batchId} or the latest before it); empty when there is none.
   */
  public static Option<OperatorStateMetadata> read(
      Path opDir, Configuration conf, int version, long batchId) {
    return OperatorStateMetadataReader.createReader(opDir, conf, version, batchId).read();
  }

  /** The stores {@code metadata} lists, in its order. */
  public static List<StateStoreMetadata> stores(OperatorStateMetadata metadata) {
    StateStoreMetadata[] stores =
        metadata instanceof OperatorStateMetadataV2 m2
            ? m2.stateStoreInfo()
            : ((OperatorStateMetadataV1) metadata).stateStoreInfo();
    return List.of(stores);
  }
}
