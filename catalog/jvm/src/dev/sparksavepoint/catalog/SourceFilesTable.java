package dev.sparksavepoint.catalog;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.FileLogs;
import dev.sparksavepoint.checkpoint.FileLogs.SourceFile;
import dev.sparksavepoint.checkpoint.SourcePositions;
import dev.sparksavepoint.checkpoint.SourcePositions.Position;
import dev.sparksavepoint.errors.Errors;
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
 * file, with the log entry that listed it. A restarted query does not read these files again.
 */
final class SourceFilesTable extends LocalTable {
  static final String NAME = "files";
  static final StructType SCHEMA = StructType.fromDDL(String.join(", ",
      "source_id INT",
      "log_offset BIGINT",
      "path STRING",
      "modification_time TIMESTAMP"));

  private final Checkpoint checkpoint;
  private final long batchId;

  SourceFilesTable(String catalog, Checkpoint checkpoint, long batchId) {
    super(catalog, SourceOffsetsTable.NAMESPACE + "." + NAME, SCHEMA,
        "a file source's seen files are read-only in this version");
    this.checkpoint = checkpoint;
    this.batchId = batchId;
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
        throw Errors.corruptFile(checkpoint.location(), "sources/" + p.sourceId(),
            "the seen files of source " + p.sourceId(), e,
            "Restore the folder from a copy of the checkpoint.");
      }
      for (SourceFile f : files) {
        rows.add(new GenericInternalRow(new Object[] {
            p.sourceId(), f.logOffset(), str(f.path()), timestamp(f.modificationTimeMs())}));
      }
    }
    return rows.toArray(new InternalRow[0]);
  }
}
