package dev.sparksavepoint.read;

import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;

/** A partition reader over rows a task has already read into a list. */
final class ListedRows implements PartitionReader<InternalRow> {
  private final List<InternalRow> rows;
  private int next = -1;

  ListedRows(List<InternalRow> rows) {
    this.rows = rows;
  }

  @Override
  public boolean next() {
    return ++next < rows.size();
  }

  @Override
  public InternalRow get() {
    return rows.get(next);
  }

  @Override
  public void close() {}
}
