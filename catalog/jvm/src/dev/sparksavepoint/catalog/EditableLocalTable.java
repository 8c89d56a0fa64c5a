package dev.sparksavepoint.catalog;

import dev.sparksavepoint.write.CollectedRowsWrite;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A {@link LocalTable} that UPDATE and MERGE change, as copy-on-write: Spark reads the table,
 * applies the statement and hands every row, as the statement left it, to {@link #apply},
 * which validates the change and commits it as a new batch. A DELETE hands the rows that
 * remain: {@code apply} sees the missing ones.
 */
abstract class EditableLocalTable extends LocalTable implements SupportsRowLevelOperations {

  protected EditableLocalTable(
      String catalog, String name, StructType schema, String readOnlyBecause) {
    super(catalog, name, schema, readOnlyBecause);
  }

  /** What the write does, for Spark's plans ("set source positions of '/c'"). */
  protected abstract String editDescription();

  /** Commits the table's rows as the statement left them (all of them, in no order). */
  protected abstract void apply(List<InternalRow> rows);

  /** Not ACCEPT_ANY_SCHEMA: Spark resolves and aligns UPDATE and MERGE assignments. */
  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE);
  }

  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    return () ->
        new RowLevelOperation() {
          @Override
          public Command command() {
            return info.command();
          }

          @Override
          public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
            return EditableLocalTable.this.newScanBuilder(options);
          }

          @Override
          public WriteBuilder newWriteBuilder(LogicalWriteInfo write) {
            return new CollectedRowsWrite(editDescription(), EditableLocalTable.this::apply);
          }
        };
  }
}
