package dev.sparksavepoint.write;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * The write end of an UPDATE or MERGE (copy-on-write) of a table of a few rows computed from
 * the checkpoint's logs ({@code sources.offsets}, {@code query.batches}): the tasks hand every
 * row of the table as the statement left it to the driver, where {@code apply} takes them all
 * at once and commits what changed.
 */
public final class CollectedRowsWrite implements WriteBuilder, Write, BatchWrite {
  private final String description;
  private final Consumer<List<InternalRow>> apply;

  /** A write described as {@code description} ("set source positions of '/c'"). */
  public CollectedRowsWrite(String description, Consumer<List<InternalRow>> apply) {
    this.description = description;
    this.apply = apply;
  }

  @Override
  public Write build() {
    return this;
  }

  @Override
  public BatchWrite toBatch() {
    return this;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return (DataWriterFactory) (partition, task) -> new Collector();
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    List<InternalRow> rows = new ArrayList<>();
    for (WriterCommitMessage m : messages) rows.addAll(((Rows) m).rows());
    apply.accept(rows);
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    // nothing was written: the driver writes only in commit
  }

  /** A task's rows. */
  record Rows(List<InternalRow> rows) implements WriterCommitMessage {}

  private static final class Collector implements DataWriter<InternalRow> {
    private final List<InternalRow> rows = new ArrayList<>();

    @Override
    public void write(InternalRow row) {
      rows.add(row.copy());
    }

    @Override
    public WriterCommitMessage commit() {
      return new Rows(rows);
    }

    @Override
    public void abort() {}

    @Override
    public void close() {}
  }
}
