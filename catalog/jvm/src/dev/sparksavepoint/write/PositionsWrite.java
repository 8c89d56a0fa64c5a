package dev.sparksavepoint.write;

import dev.sparksavepoint.write.PositionsEdit.Row;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * The write of {@code sources.offsets} rows (the copy-on-write end of an UPDATE or MERGE): the
 * tasks hand their rows to the driver, which applies them all at once ({@link PositionsEdit}).
 * Columns by position: {@code batch_id, source_id, source, description, topic, partition,
 * offset, offset_json}.
 */
public final class PositionsWrite implements WriteBuilder, Write, BatchWrite {
  private final String checkpoint;
  private final long readBatch;

  /** The write of the table of {@code checkpoint} read at batch {@code readBatch}. */
  public PositionsWrite(String checkpoint, long readBatch) {
    this.checkpoint = checkpoint;
    this.readBatch = readBatch;
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
    return "set source positions of " + checkpoint;
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return (DataWriterFactory) (partition, task) -> new Collector();
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    List<Row> rows = new ArrayList<>();
    for (WriterCommitMessage m : messages) rows.addAll(((Rows) m).rows());
    PositionsEdit.apply(SparkSession.active(), checkpoint, readBatch, rows);
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    // nothing was written: the driver writes only in commit
  }

  /** A task's rows. */
  record Rows(List<Row> rows) implements WriterCommitMessage {}

  private static final class Collector implements DataWriter<InternalRow> {
    private final List<Row> rows = new ArrayList<>();

    @Override
    public void write(InternalRow r) {
      rows.add(new Row(r.getInt(1), r.isNullAt(2) ? null : r.getUTF8String(2).toString(),
          r.isNullAt(4) ? null : r.getUTF8String(4).toString(),
          r.isNullAt(5) ? null : r.getInt(5), r.isNullAt(6) ? null : r.getLong(6)));
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
