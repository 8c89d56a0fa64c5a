package dev.sparksavepoint.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.commit.EditClaim;
import dev.sparksavepoint.commit.EditToken;
import dev.sparksavepoint.errors.Errors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.StructType;

/**
 * {@code <catalog>.query.edits}: one row per batch an edit of this tool committed (up to the
 * batch read), from the edit's claim file {@code _savepoint/edits/<b>.<id>.json} whose id the
 * batch's commit entry carries ({@code EditToken}): what it was, when, by which process and
 * user, its SQL statements (none for writes without SQL: the DataFrame API, Spark Connect's
 * plans), and the entries it wrote and removed (from the commit entry). A claim whose batch the
 * query committed (the edit failed or was recovered) is no edit batch.
 */
final class EditsTable extends LocalTable {
  static final String NAME = "edits";
  static final StructType SCHEMA =
      StructType.fromDDL(
          String.join(
              ", ",
              "batch_id BIGINT",
              "edit_id STRING",
              "edit STRING",
              "claimed_at TIMESTAMP",
              "host STRING",
              "pid BIGINT",
              "user STRING",
              "statements ARRAY<STRING>",
              "written BIGINT",
              "removed BIGINT"));

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Checkpoint checkpoint;
  private final long readBatch;

  EditsTable(String catalog, Checkpoint checkpoint, long readBatch) {
    super(
        catalog,
        BatchesTable.NAMESPACE + "." + NAME,
        SCHEMA,
        "it lists what edits committed; undo an edit with spark-savepoint undo");
    this.checkpoint = checkpoint;
    this.readBatch = readBatch;
  }

  @Override
  protected InternalRow[] rows() {
    FileSystem fs = checkpoint.fileSystem();
    Path root = checkpoint.root();
    List<InternalRow> rows = new ArrayList<>();
    try {
      FileStatus[] claims;
      try {
        claims = fs.listStatus(new Path(root, EditClaim.FOLDER));
      } catch (FileNotFoundException e) {
        return new InternalRow[0]; // never edited
      }
      for (FileStatus claim : claims) {
        String name = claim.getPath().getName();
        long batch = EditClaim.batchOf(name);
        if (batch < 0 || batch > readBatch) continue;
        String id = name.substring(name.indexOf('.') + 1, name.length() - ".json".length());
        JsonNode commit = EditToken.commitMetadata(fs, root, batch);
        if (commit == null || !id.equals(commit.path(EditToken.FIELD).asText(""))) continue;
        JsonNode record;
        try (InputStream in = fs.open(claim.getPath())) {
          record = JSON.readTree(in);
        }
        rows.add(row(batch, id, record, commit.path(EditToken.ROWS_FIELD)));
      }
    } catch (IOException e) {
      throw Errors.corruptFile(
          checkpoint.location(),
          EditClaim.FOLDER,
          "the record of its edits",
          e,
          "Restore the folder from a copy of the checkpoint.");
    }
    rows.sort(Comparator.comparingLong(r -> r.getLong(0)));
    return rows.toArray(new InternalRow[0]);
  }

  private static InternalRow row(long batch, String id, JsonNode record, JsonNode counts) {
    String claimed = record.path("claimedAt").asText("");
    Long at = claimed.isEmpty() ? null : Instant.parse(claimed).toEpochMilli() * 1000;
    return new GenericInternalRow(
        new Object[] {
          batch,
          str(id),
          str(record.path("edit").asText(null)),
          at,
          str(record.path("host").asText(null)),
          record.has("pid") ? record.path("pid").asLong() : null,
          str(record.path("user").asText(null)),
          record.has("statements")
              ? new GenericArrayData(
                  StreamSupport.stream(record.path("statements").spliterator(), false)
                      .map(s -> str(s.asText()))
                      .toArray())
              : null,
          count(counts, "written"),
          count(counts, "removed")
        });
  }

  /** An entry count of the commit's record, null when not recorded. */
  private static Long count(JsonNode counts, String field) {
    JsonNode n = counts.path(field);
    return n.isNumber() ? n.asLong() : null;
  }
}
