package dev.sparksavepoint.sql;

import dev.sparksavepoint.errors.Errors;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.Option;
import scala.collection.immutable.Seq;

/**
 * {@code savepoint_changes(table, from [, to])}: the change feed of a state table, what each of
 * the batches {@code from} to {@code to} (default: the table's batch) changed, one row per
 * change: {@code batch_id}, {@code change_type} ({@code insert}, {@code update}, {@code delete}),
 * the key columns and the value columns after the change (NULL for a delete), or the whole row
 * where rows repeat their key (inserted or deleted), then {@code partition_id}. Each batch's
 * changes are those of the {@link StateDiff} of the batch before it and its own, for every
 * operator kind and both providers; at most {@link #MAX_BATCHES} batches per call. Where the
 * batches' change files hold them (aggregations, dropDuplicates and groupsWithState state on
 * Spark 4.0 and later, see {@code read.ChangeFeedScan}), they are read from those files and the
 * changed keys looked up as of the batch before {@code from}; elsewhere each batch is that diff
 * of two full reads.
 *
 * <pre>
 *   SELECT * FROM savepoint_changes('savepoint.agg_0.default', 3, 7) WHERE user = 'alice';
 * </pre>
 */
final class StateChanges {
  static final String NAME = "savepoint_changes";
  static final String USAGE = "table, from [, to]";

  /** The most batches one call reads (as many as Spark keeps by default). */
  static final int MAX_BATCHES = 100;

  private StateChanges() {}

  /** The (unresolved) plan of {@code savepoint_changes(args)}. */
  static LogicalPlan plan(Seq<Expression> args) {
    SavepointExtensions.checkArity(NAME, args, 2, 3, USAGE);
    SparkSession spark = SparkSession.active();
    String name = SavepointExtensions.literal(args, 0);
    StateDiff diff = StateDiff.of(spark, NAME, name);
    long from = batch(args, 1);
    long to = args.size() > 2 ? batch(args, 2) : diff.batch();
    if (to < from || to - from >= MAX_BATCHES) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS",
          NAME
              + "('"
              + name
              + "', "
              + from
              + ", "
              + to
              + ") names no range of at most "
              + MAX_BATCHES
              + " batches: give from <= to, at most "
              + MAX_BATCHES
              + " apart.");
    }
    Table feed = diff.table().changes(from, to);
    if (feed != null) return DataSourceV2Relation.create(feed, Option.empty(), Option.empty());
    List<String> batches = new ArrayList<>();
    for (long b = from; b <= to; b++) batches.add(diff.batchChanges(b));
    String sql = String.join(" UNION ALL ", batches);
    return SavepointExtensions.parsed(spark, NAME, sql);
  }

  private static long batch(Seq<Expression> args, int index) {
    String value = SavepointExtensions.literal(args, index);
    if (value == null || !value.trim().matches("\\d+")) {
      throw SavepointExtensions.badArgument(NAME, USAGE, index + 1, "a batch id", value);
    }
    return Long.parseLong(value.trim());
  }
}
