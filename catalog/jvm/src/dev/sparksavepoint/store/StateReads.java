package dev.sparksavepoint.store;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;

/**
 * What an edit reads of one store partition: the state as stored ({@link StoredReads}), or, for
 * a later statement of an edit transaction, that state with the earlier statements' staged
 * changes over it ({@link StagedState}). Keys and values are the rows Spark encodes them to.
 */
interface StateReads {
  /** The value of {@code key} in column family {@code cf}, or null. */
  UnsafeRow get(UnsafeRow key, String cf);

  /** The values of a multi-valued (list) family under {@code key}, copied. */
  List<UnsafeRow> values(UnsafeRow key, String cf);

  /** Every key of {@code cf}, copied, each once (also for list families). */
  List<UnsafeRow> keys(String cf);

  /** The keys of {@code cf} earlier statements of the transaction changed (or removed). */
  default List<UnsafeRow> changedKeys(String cf) {
    return List.of();
  }
}
