package dev.sparksavepoint.write;

import java.util.function.Function;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * DELETE on a state table, as copy-on-write: Spark reads the current state through the table's
 * own scan, applies the statement, and hands every remaining row to a replacing write. The
 * write then stores only the difference (removed keys and changed values; unchanged keys are
 * not rewritten), as one new batch.
 */
public final class StateRewrite implements RowLevelOperation {
  private final String table;
  private final Command command;
  private final Function<CaseInsensitiveStringMap, ScanBuilder> scans;
  private final Function<LogicalWriteInfo, StateWriteBuilder> writes;

  /**
   * @param scans the table's scans
   * @param writes the table's write builders (the rewrite replaces the table's content)
   */
  public StateRewrite(String table, Command command,
      Function<CaseInsensitiveStringMap, ScanBuilder> scans,
      Function<LogicalWriteInfo, StateWriteBuilder> writes) {
    this.table = table;
    this.command = command;
    this.scans = scans;
    this.writes = writes;
  }

  @Override
  public String description() {
    return command + " on savepoint state " + table;
  }

  @Override
  public Command command() {
    return command;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return scans.apply(options);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return writes.apply(info).truncate();
  }
}
