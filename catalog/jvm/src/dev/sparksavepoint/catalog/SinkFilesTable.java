package dev.sparksavepoint.catalog;

import dev.sparksavepoint.checkpoint.FileLogs;
import dev.sparksavepoint.checkpoint.FileLogs.SinkFile;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * {@code <catalog>.sink.files}: which batch of the query's file sink wrote which files, from the
 * sink's log {@code <output>/_spark_metadata} (beside the output, not in the checkpoint: the
 * catalog's {@code sink} option names the output folder), up to the batch of
 * {@code VERSION AS OF}, else all.
 */
final class SinkFilesTable extends LocalTable {
  static final String NAMESPACE = "sink";
  static final String NAME = "files";
  static final StructType SCHEMA =
      StructType.fromDDL(
          String.join(
              ", ",
              "batch_id BIGINT",
              "path STRING",
              "size BIGINT",
              "modification_time TIMESTAMP",
              "action STRING"));

  private final String checkpoint;
  private final String output;
  private final Long upTo;

  /** {@code upTo}: the last batch to list, or null for every batch. */
  SinkFilesTable(String catalog, String checkpoint, String output, Long upTo) {
    super(
        catalog,
        NAMESPACE + "." + NAME,
        SCHEMA,
        "it lists what the file sink wrote and is read-only");
    this.checkpoint = checkpoint;
    this.output = output;
    this.upTo = upTo;
  }

  @Override
  protected InternalRow[] rows() {
    List<SinkFile> files;
    try {
      files =
          FileLogs.sinkFiles(SparkSession.active(), output, upTo == null ? Long.MAX_VALUE : upTo);
    } catch (java.io.FileNotFoundException e) {
      throw Errors.noSinkLog(checkpoint, output, catalog);
    } catch (IOException | RuntimeException e) {
      throw Errors.corruptFile(
          checkpoint,
          FileLogs.sinkLog(output).toString(),
          "the file sink's log",
          e,
          "Restore the folder from a copy of the output.");
    }
    List<InternalRow> rows = new ArrayList<>();
    for (SinkFile f : files) {
      rows.add(
          new GenericInternalRow(
              new Object[] {
                f.batchId(),
                str(f.path()),
                f.size(),
                timestamp(f.modificationTimeMs()),
                str(f.action())
              }));
    }
    return rows.toArray(new InternalRow[0]);
  }
}
