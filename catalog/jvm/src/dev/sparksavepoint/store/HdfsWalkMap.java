package dev.sparksavepoint.store;

import org.apache.spark.sql.catalyst.expressions.UnsafeRow;

/**
 * The map of an HDFS-backed store that writes version N+1 of a partition while a replace walks
 * the partition's stored entries in key order beside the rows it is given
 * ({@code write.UngivenKeys}): it knows one entry at a time, the one the walk is at
 * ({@link #at}), and keeps nothing of what is put or removed. Spark's store still writes every
 * put and removal to version N+1's delta file itself. A DELETE, UPDATE or MERGE of millions of
 * keys so holds no entry of the partition on the heap.
 */
public final class HdfsWalkMap extends PartHdfsMap {
  private UnsafeRow key;
  private UnsafeRow value;
  private long size;

  /** The entries the partition holds at version N (the walk counts them). */
  public void stored(long entries) {
    size = entries;
  }

  /** The walk is at {@code key}, whose stored value is {@code value} (null: none). */
  public void at(UnsafeRow key, UnsafeRow value) {
    this.key = key;
    this.value = value;
  }

  private void known(UnsafeRow asked) {
    if (key == null || !key.equals(asked)) {
      throw new IllegalStateException(
          "[SAVEPOINT_INTERNAL] a key the walk is not at was looked up in a walked"
              + " HDFS-backed store partition");
    }
  }

  @Override
  public int size() {
    return (int) Math.min(size, Integer.MAX_VALUE);
  }

  @Override
  public UnsafeRow get(UnsafeRow asked) {
    known(asked);
    return value;
  }

  @Override
  protected void added(UnsafeRow put, UnsafeRow newValue) {
    known(put);
    if (value == null) size++;
    value = newValue;
  }

  @Override
  protected UnsafeRow removed(UnsafeRow gone) {
    known(gone);
    UnsafeRow before = value;
    if (before != null) size--;
    value = null;
    return before;
  }

  @Override
  protected UnsupportedOperationException unsupported(String what) {
    return new UnsupportedOperationException(
        "[SAVEPOINT_INTERNAL] "
            + what
            + " on a walked HDFS-backed store partition, which knows only the entry a replace"
            + " is at");
  }
}
