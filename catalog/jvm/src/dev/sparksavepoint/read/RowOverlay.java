package dev.sparksavepoint.read;

import java.io.Serializable;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * Changes laid over the flat rows a scan task reads (an edit transaction's staged changes, which
 * a later statement of the transaction reads, {@code write.StagedRows}). Shipped to the tasks.
 */
public interface RowOverlay extends Serializable {
  /**
   * The rows of {@code stored}, the flat rows of Spark's reader for {@code partition}, with the
   * changes over them; {@code withPartition}: the rows end in their {@code partition_id}.
   */
  PartitionReader<InternalRow> over(
      PartitionReader<InternalRow> stored, InputPartition partition, boolean withPartition);
}
