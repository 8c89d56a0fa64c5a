package dev.sparksavepoint.read;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.hash;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.Dataset;
import org.apache.spark.sql.classic.Dataset$;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.execution.datasources.v2.state.StateDataSource;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * Which sets of key columns place every stored key of a state where it lives: one Spark job
 * over the state (Spark's {@code statestore} reader) that counts, per candidate set, the keys
 * whose {@code pmod(hash(columns), n)} is not their {@code partition_id}. Example: on a state
 * written by {@code repartition(k1).groupBy(k1, k2)}, {@code [k1]} fits (no misplaced key) and
 * {@code [k1, k2]} does not.
 */
public final class PlacementCheck {
  /** Every subset of at most this many key columns is a candidate; beyond, only all of them. */
  private static final int MAX_SUBSET_COLUMNS = 6;

  private final long keys;
  private final List<int[]> candidates;
  private final long[] misplaced;

  private PlacementCheck(long keys, List<int[]> candidates, long[] misplaced) {
    this.keys = keys;
    this.candidates = candidates;
    this.misplaced = misplaced;
  }

  /**
   * Checks {@code given} (key column indexes, or null) and every candidate subset of the key
   * fields of the state read with {@code options} as {@code schema} (the reader's, from
   * {@link StateSource#schema}), in {@code n} partitions.
   */
  public static PlacementCheck run(
      Map<String, String> options, StructType schema, int n, int[] given) {
    List<String> keyFields = List.of(((StructType) schema.apply("key").dataType()).fieldNames());
    List<int[]> candidates = candidates(keyFields.size());
    if (given != null && candidates.stream().noneMatch(c -> Arrays.equals(c, given))) {
      candidates.add(0, given);
    }
    return ReaderSession.run(
        options,
        () -> {
          SparkSession spark = (SparkSession) SparkSession.active();
          Column partition = col("partition_id");
          List<Column> misses = new ArrayList<>();
          for (int[] columns : candidates) {
            Column[] key =
                Arrays.stream(columns)
                    .mapToObj(i -> col("key").getField(keyFields.get(i)))
                    .toArray(Column[]::new);
            Column placed = pmod(hash(key), lit(n));
            misses.add(sum(when(placed.equalTo(partition), 0L).otherwise(1L)));
          }
          SupportsRead table =
              (SupportsRead) new StateDataSource().getTable(schema, new Transform[0], options);
          // the table was made with the reader options; the relation passes none to its scans
          Dataset<Row> state =
              Dataset$.MODULE$.ofRows(
                  spark, DataSourceV2Relation.create(table, Option.empty(), Option.empty()));
          Row row = state.agg(count(lit(1)), misses.toArray(Column[]::new)).first();
          long[] misplaced = new long[candidates.size()];
          for (int i = 0; i < misplaced.length; i++) {
            misplaced[i] = row.isNullAt(i + 1) ? 0 : row.getLong(i + 1);
          }
          return new PlacementCheck(row.getLong(0), candidates, misplaced);
        });
  }

  /** Non-empty subsets of the key columns in key order, smallest first. */
  private static List<int[]> candidates(int columns) {
    List<int[]> out = new ArrayList<>();
    if (columns > MAX_SUBSET_COLUMNS) {
      out.add(java.util.stream.IntStream.range(0, columns).toArray());
      return out;
    }
    for (int mask = 1; mask < (1 << columns); mask++) {
      final int m = mask;
      out.add(
          java.util.stream.IntStream.range(0, columns).filter(i -> (m & (1 << i)) != 0).toArray());
    }
    out.sort((a, b) -> a.length != b.length ? a.length - b.length : Arrays.compare(a, b));
    return out;
  }

  /** How many keys are stored. */
  public long keys() {
    return keys;
  }

  /** How many stored keys {@code columns} places elsewhere than they live. */
  public long misplaced(int[] columns) {
    for (int i = 0; i < candidates.size(); i++) {
      if (Arrays.equals(candidates.get(i), columns)) return misplaced[i];
    }
    throw new IllegalArgumentException("not a checked candidate: " + Arrays.toString(columns));
  }

  /**
   * What the stored keys tell, for messages: "the stored keys fit partitioned_by 'k1' or
   * 'k1,k2'", "no stored key tells the partitioning", or that no candidate fits.
   */
  public String fits(List<String> names) {
    if (keys == 0) return "the state holds no key to tell them by";
    List<String> fitting = new ArrayList<>();
    for (int i = 0; i < candidates.size(); i++) {
      if (misplaced[i] == 0) {
        fitting.add(
            "'"
                + Arrays.stream(candidates.get(i))
                    .mapToObj(names::get)
                    .collect(Collectors.joining(","))
                + "'");
      }
    }
    if (fitting.isEmpty()) {
      return "no set of key columns places all "
          + keys
          + " stored keys where they live (the"
          + " query partitioned by an expression, not by key columns)";
    }
    return "the "
        + keys
        + " stored keys fit partitioned_by "
        + String.join(" or ", fitting.subList(0, Math.min(3, fitting.size())));
  }
}
