package dev.sparksavepoint.write;

import dev.sparksavepoint.read.FlatSchema;
import java.util.function.Function;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * DELETE on a state table, as copy-on-write: Spark reads the current state through the table's
 * own scan, applies the statement, and hands every remaining row to a replacing write. The
 * write then stores only the difference (removed keys and changed values; unchanged keys are
 * not rewritten), as one new batch. The scan also reads the metadata column
 * {@code partition_id}, so that a condition may name it; the write gets the data columns only.
 *
 * @param table the table's name, for descriptions
 * @param scans the table's scans
 * @param writes the table's write builders (the rewrite replaces the table's content)
 */
public record StateRewrite(
    String table,
    Command command,
    Function<CaseInsensitiveStringMap, ScanBuilder> scans,
    Function<LogicalWriteInfo, StateWriteBuilder> writes)
    implements RowLevelOperation {

  @Override
  public String description() {
    return command + " on savepoint state " + table;
  }

  @Override
  public NamedReference[] requiredMetadataAttributes() {
    return new NamedReference[] {Expressions.column(FlatSchema.PARTITION_ID)};
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return scans.apply(options);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return writes.apply(info).rewriteRows();
  }
}
