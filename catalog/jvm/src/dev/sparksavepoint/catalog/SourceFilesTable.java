package dev.sparksavepoint.catalog;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.FileLogs;
import dev.sparksavepoint.checkpoint.FileLogs.SourceFile;
import dev.sparksavepoint.checkpoint.SourcePositions;
import dev.sparksavepoint.checkpoint.SourcePositions.Position;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.logedit.SeenFilesEdit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * {@code <catalog>.sources.files}: the files each file source of the query has seen as of batch
 * N, from its log {@code sources/<i>/} up to the log index batch N's offsets name: one row per
 * file, with the log entry that listed it. A restarted query does not read these files again,
 * unless their rows are deleted ({@link SeenFilesEdit}).
 */
final class SourceFilesTable extends EditableLocalTable {
  static final String NAME = "files";
  static final StructType SCHEMA =
      StructType.fromDDL(
          String.join(
              ", ",
              "source_id INT",
              "log_offset BIGINT",
              "path STRING",
              "modification_time TIMESTAMP"));

  private final Checkpoint checkpoint;
  private final long batchId;

  SourceFilesTable(String catalog, Checkpoint checkpoint, long batchId) {
    super(
        catalog,
        SourceOffsetsTable.NAMESPACE + "." + NAME,
        SCHEMA,
        "DELETE rows to read those files again; rows cannot be added or changed");
    this.checkpoint = checkpoint;
    this.batchId = batchId;
  }

  @Override
  protected String editDescription() {
    return "read files of '" + checkpoint.location() + "' again";
  }

  /** The rows the statement left: the missing ones are files to read again. */
  @Override
  protected void apply(List<InternalRow> rows) {
    InternalRow[] before = new SourceFilesTable(catalog, checkpoint.refreshed(), batchId).rows();
    SeenFilesEdit.apply(SparkSession.active(), checkpoint.location(), batchId, before, rows);
  }

  @Override
  protected InternalRow[] rows() {
    List<InternalRow> rows = new ArrayList<>();
    SparkSession spark = SparkSession.active();
    for (Position p : checkpoint.sourcePositions(batchId)) {
      if (!p.kind().equals(SourcePositions.FILE)) continue;
      List<SourceFile> files;
      try {
        files = FileLogs.sourceFiles(spark, checkpoint, p.sourceId(), p.offset());
      } catch (IOException | RuntimeException e) {
        throw Errors.corruptFile(
            checkpoint.location(),
            "sources/" + p.sourceId(),
            "the seen files of source " + p.sourceId(),
            e,
            "Restore the folder from a copy of the checkpoint.");
      }
      for (SourceFile f : files) {
        rows.add(
            new GenericInternalRow(
                new Object[] {
                  p.sourceId(), f.logOffset(), str(f.path()), timestamp(f.modificationTimeMs())
                }));
      }
    }
    return rows.toArray(new InternalRow[0]);
  }
}
