package dev.sparksavepoint.commit;

import dev.sparksavepoint.checkpoint.StoreSpec;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What one task reports after committing one state store partition: which store and partition,
 * the checkpoint id of the new version (checkpoint format v2, else null) and the row counts.
 */
public record PartitionCommit(
    long operatorId,
    String storeName,
    int partition,
    String checkpointId,
    long upserted,
    long removed)
    implements WriterCommitMessage {

  /** True when this commit is for {@code spec}'s partition {@code p}. */
  public boolean covers(StoreSpec spec, int p) {
    return operatorId == spec.operatorId() && storeName.equals(spec.storeName()) && partition == p;
  }
}
