package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.MovedSchemaFiles;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.errors.Errors;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.execution.datasources.v2.state.StateDataSource;
import org.apache.spark.sql.types.NullType$;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Spark's own {@code statestore} data source, the only way state is read: its schema for a set
 * of reader options (from schema and metadata files, no Spark job) and its scans, each run with
 * the checkpoint format version of the batch read ({@link ReaderSession}).
 */
public final class StateSource {
  private StateSource() {}

  /** The nested schema ({@code key}, {@code value}, ..., {@code partition_id}) of a state. */
  public static StructType schema(Map<String, String> options) {
    return ReaderSession.run(
        options, () -> new StateDataSource().inferSchema(new CaseInsensitiveStringMap(options)));
  }

  /**
   * The schema of state {@code table} of operator {@code op} as of {@code batchId} of
   * {@code ckpt} (a committed batch's inferred once: {@link InferredSchemas}).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when its state schema
   *     or metadata files cannot be read
   */
  public static StructType schema(
      Checkpoint ckpt, Operator op, String table, long batchId, Map<String, String> options) {
    String checkpoint = ckpt.location();
    try {
      StructType schema = InferredSchemas.of(ckpt, batchId, options, () -> schema(options));
      return op.recordsWholeRowAsValue() ? withPlaceholderValue(schema) : schema;
    } catch (Exception e) { // Spark's readers may throw Hadoop's checked exceptions
      if (Errors.isSavepointError(e)) throw e;
      RuntimeException newer = Errors.newerLog(checkpoint, e);
      if (newer != null) throw newer;
      String missing = MovedSchemaFiles.missingElsewhere(checkpoint, e);
      if (missing != null) throw Errors.movedCheckpoint(checkpoint, op.uid(), missing);
      throw Errors.corruptFile(
          checkpoint,
          "state/" + op.id() + "/ (state schema files" + " of " + op.uid() + "." + table + ")",
          "batch " + batchId,
          e,
          "Restore the state"
              + " folder's _metadata and _stateSchema files from a copy of the checkpoint.");
    }
  }

  /** dropDuplicates' value as Spark 3.5 and later record it: one void placeholder field. */
  public static final StructType DEDUP_VALUE = new StructType().add("__dummy__", NullType$.MODULE$);

  /**
   * The reader's schema with dropDuplicates' placeholder as its {@code value}: for a
   * dropDuplicates of Spark 3.2 to 3.4, whose schema file records the whole input row while its
   * rows hold one null field ({@link Operator#recordsWholeRowAsValue}). Spark's reader decodes
   * rows with the schema {@link #scanBuilder} gives it, so it reads them as 4.3 reads the same
   * state of a 3.5 dropDuplicates; writes open their stores with it too.
   */
  static StructType withPlaceholderValue(StructType schema) {
    StructField[] fields = schema.fields().clone();
    for (int i = 0; i < fields.length; i++) {
      if (fields[i].name().equals("value")) {
        fields[i] =
            new StructField("value", DEDUP_VALUE, fields[i].nullable(), fields[i].metadata());
      }
    }
    return new StructType(fields);
  }

  /** A scan builder of the state reader with {@code options}, for a known {@code schema}. */
  public static ScanBuilder scanBuilder(StructType schema, Map<String, String> options) {
    try {
      return ReaderSession.run(
          options,
          () -> {
            SupportsRead table =
                (SupportsRead) new StateDataSource().getTable(schema, new Transform[0], options);
            return table.newScanBuilder(new CaseInsensitiveStringMap(options));
          });
    } catch (java.util.NoSuchElementException e) {
      // Spark's None.get on the settings the batch's offsets entry should record
      String batch = options.getOrDefault("batchId", "?");
      throw Errors.corruptFile(
          options.getOrDefault("path", "?"),
          "offsets/" + batch,
          "batch " + batch,
          new IllegalStateException(
              "its metadata line records no spark.sql.shuffle.partitions, which Spark's state"
                  + " reader needs"),
          "Run `spark-savepoint doctor` and `repair` on the checkpoint, or restore the file from"
              + " a copy.");
    }
  }
}
