package dev.sparksavepoint.checkpoint;

import java.io.Serializable;
import org.apache.spark.sql.types.StructType;

/**
 * One state store of a stateful operator, as a write commits it: operator id, store name, number
 * of partitions, the key and value schemas its provider is opened with, and the store's index
 * within the operator (the position of its ids in a checkpoint-format-v2 commit log entry).
 * {@code families} lists the column families of a transformWithState store (null otherwise).
 */
public record StoreSpec(
    long operatorId,
    String storeName,
    int numPartitions,
    StructType keySchema,
    StructType valueSchema,
    int storeIndex,
    ColumnFamilies families)
    implements Serializable {

  public StoreSpec(
      long operatorId,
      String storeName,
      int numPartitions,
      StructType keySchema,
      StructType valueSchema,
      int storeIndex) {
    this(operatorId, storeName, numPartitions, keySchema, valueSchema, storeIndex, null);
  }

  /** The key schema of column family {@code family} (the store's own without families). */
  public StructType keySchema(String family) {
    return families == null ? keySchema : families.schema(family).keySchema();
  }

  /** The value schema of column family {@code family} (the store's own without families). */
  public StructType valueSchema(String family) {
    return families == null ? valueSchema : families.schema(family).valueSchema();
  }

  /** "operator 0 store default", for messages. */
  public String describe() {
    return "operator " + operatorId + " store " + storeName;
  }
}
