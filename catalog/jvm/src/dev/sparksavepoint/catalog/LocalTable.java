package dev.sparksavepoint.catalog;

import dev.sparksavepoint.errors.Errors;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A read-only table whose few rows are computed on the driver from checkpoint files when it is
 * scanned (a local scan: no Spark job). A write is refused with SAVEPOINT_UNSUPPORTED: it
 * declares write capabilities only to say so in one line.
 */
abstract class LocalTable implements Table, SupportsRead, SupportsWrite {
  /** The catalog's name, for table names and messages. */
  protected final String catalog;

  private final String name;
  private final StructType schema;
  private final String readOnlyBecause;

  /**
   * Table {@code <catalog>.<name>} of columns {@code schema}; {@code readOnlyBecause} says why a
   * write is refused ("it describes the ...").
   */
  protected LocalTable(String catalog, String name, StructType schema, String readOnlyBecause) {
    this.catalog = catalog;
    this.name = catalog + "." + name;
    this.schema = schema;
    this.readOnlyBecause = readOnlyBecause;
  }

  /** The rows, in {@link #schema()}'s order and Spark's internal types. */
  protected abstract InternalRow[] rows();

  @Override
  public String name() {
    return name;
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(
        TableCapability.BATCH_READ,
        TableCapability.BATCH_WRITE,
        TableCapability.TRUNCATE,
        TableCapability.ACCEPT_ANY_SCHEMA);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    throw Errors.unsupported("Writing " + name + " (" + readOnlyBecause + ")", catalog);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    InternalRow[] rows = rows();
    StructType schema = schema();
    return () ->
        new LocalScan() {
          @Override
          public InternalRow[] rows() {
            return rows;
          }

          @Override
          public StructType readSchema() {
            return schema;
          }
        };
  }

  static UTF8String str(String s) {
    return s == null ? null : UTF8String.fromString(s);
  }

  /** Epoch milliseconds as a TIMESTAMP value (microseconds); null for a negative time. */
  static Long timestamp(long epochMillis) {
    return epochMillis < 0 ? null : epochMillis * 1000;
  }
}
