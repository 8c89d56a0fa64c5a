package dev.sparksavepoint.catalog;

import java.util.Set;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The change feed of a state table over a range of batches, read from the batches' change files
 * ({@link FlatStateTable#changes}): the relation {@code savepoint_changes} returns where it
 * applies. Its columns: {@code batch_id}, {@code change_type}, the key and value columns, {@code
 * partition_id}.
 */
final class StateChangesTable implements Table, SupportsRead {
  private final String name;
  private final StructType schema;
  private final Supplier<ScanBuilder> scans;

  StateChangesTable(String name, StructType schema, Supplier<ScanBuilder> scans) {
    this.name = name;
    this.schema = schema;
    this.scans = scans;
  }

  @Override
  public String name() {
    return name + " changes";
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return scans.get();
  }
}
