package dev.sparksavepoint.read;

import dev.sparksavepoint.checkpoint.TableOrigin;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;

/**
 * The scan of a state table: a filter that pins every key column to literals becomes a key
 * lookup ({@link KeyLookupScan}: only the partitions of those keys are loaded, and only those
 * keys read); any other read is Spark's {@code statestore} scan, flattened ({@link FlatScan}).
 * Spark evaluates every predicate again on the rows either returns: a lookup only prunes. Both
 * return every data column, and the metadata column {@code partition_id} when the query names it.
 */
public final class StateScanBuilder
    implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
  private final Supplier<ScanBuilder> source;
  private FlatSchema flat;
  private final String name;
  private final FlatScan.ReadFailure failure;

  /** Where the table comes from, or null. */
  private final TableOrigin origin;

  /** True when a filter that pins the key columns makes the read a key lookup. */
  private final boolean lookups;

  private KeyPredicates.Pinned pinned;

  /** Changes laid over the rows read (an edit transaction's), or null. */
  private final RowOverlay overlay;

  /**
   * A scan builder over {@code source} (built only when the table is scanned) for a table from
   * {@code origin} (null: unknown, every read goes through {@code source}); without
   * {@code lookups} every read scans (a row-level command's read, which must see every row).
   * With {@code overlay} (not null) every read scans and returns the rows with its changes over
   * them.
   */
  public StateScanBuilder(
      Supplier<ScanBuilder> source,
      FlatSchema flat,
      String name,
      FlatScan.ReadFailure failure,
      TableOrigin origin,
      boolean lookups,
      RowOverlay overlay) {
    this.source = source;
    this.flat = flat;
    this.name = name;
    this.failure = failure;
    this.origin = origin;
    this.lookups = lookups && origin != null && overlay == null;
    this.overlay = overlay;
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    List<String> keyColumns = lookups ? flat.keyColumns() : null;
    if (keyColumns != null) pinned = KeyPredicates.pin(predicates, keyColumns, flat.schema());
    return predicates;
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pinned == null ? new Predicate[0] : pinned.used();
  }

  @Override
  public void pruneColumns(StructType required) {
    flat = flat.pruned(required);
  }

  @Override
  public Scan build() {
    if (pinned != null) {
      StoreTarget target = StoreTarget.forLookups(SparkSession.active(), origin, flat.source());
      if (target != null) return new KeyLookupScan(target, flat, name, failure, pinned.keys());
    }
    StoreTarget streamed =
        origin == null ? null : StoreTarget.forScan(SparkSession.active(), origin, flat.source());
    return new FlatScan(source.get().build(), flat, name, failure, overlay, streamed);
  }
}
