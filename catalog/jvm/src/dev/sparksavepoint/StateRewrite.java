package dev.sparksavepoint;

import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * DELETE on a state table, as copy-on-write: Spark reads the current state
 * through the table's own scan, applies the statement, and hands every remaining row to a
 * replacing write. The write then stores only the difference (removed keys and changed values;
 * unchanged keys are not rewritten), as one new batch.
 */
final class StateRewrite implements RowLevelOperation {
  private final FlatStateTable table;
  private final Command command;

  StateRewrite(FlatStateTable table, Command command) {
    this.table = table;
    this.command = command;
  }

  @Override
  public String description() {
    return command + " on savepoint state " + table.name();
  }

  @Override
  public Command command() {
    return command;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return table.newScanBuilder(options);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return ((StateWriteBuilder) table.newWriteBuilder(info)).replacing();
  }
}
