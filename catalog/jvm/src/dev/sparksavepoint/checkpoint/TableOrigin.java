package dev.sparksavepoint.checkpoint;

/**
 * Where a state table comes from: the checkpoint, the operator, the state's name and reader
 * reference, and the batch it was loaded at. Writes start from here
 * ({@code write.WritePlan}). {@code openedWritable}: the catalog was opened for edits
 * ({@code writable=true}), which a savepoint needs unless it was taken writable.
 * {@code queryPartitioning}: the columns the catalog's query (given with {@code --query} or
 * {@code attach(..., query=)}) partitions the operator's input by, comma-separated; or null.
 */
public record TableOrigin(
    String checkpoint,
    Operator operator,
    String state,
    StateRef ref,
    long batchId,
    boolean openedWritable,
    String queryPartitioning) {

  public TableOrigin(
      String checkpoint, Operator operator, String state, StateRef ref, long batchId) {
    this(checkpoint, operator, state, ref, batchId, false, null);
  }
}
