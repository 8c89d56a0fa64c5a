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
import org.apache.spark.sql.SparkSession;

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
   * Checks {@code given} (key column indexes, or null) and every candidate subset of the
   * {@code keyFields} of the state read with {@code options}, in {@code n} partitions.
   */
  public static PlacementCheck run(Map<String, String> options, List<String> keyFields, int n,
      int[] given) {
    List<int[]> candidates = candidates(keyFields.size());
    if (given != null && candidates.stream().noneMatch(c -> Arrays.equals(c, given))) {
      candidates.add(0, given);
    }
    return FormatSession.run(options, () -> {
      SparkSession spark = SparkSession.active();
      Column partition = col("partition_id");
      List<Column> misses = new ArrayList<>();
      for (int[] columns : candidates) {
        Column[] key = Arrays.stream(columns)
            .mapToObj(i -> col("key").getField(keyFields.get(i))).toArray(Column[]::new);
        Column placed = pmod(hash(key), lit(n));
        misses.add(sum(when(placed.equalTo(partition), 0L).otherwise(1L)));
      }
      Row row = spark.read().format("statestore").options(options).load()
          .agg(count(lit(1)), misses.toArray(Column[]::new)).first();
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
      out.add(java.util.stream.IntStream.range(0, columns).filter(i -> (m & (1 << i)) != 0)
          .toArray());
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
        fitting.add("'" + Arrays.stream(candidates.get(i)).mapToObj(names::get)
            .collect(Collectors.joining(",")) + "'");
      }
    }
    if (fitting.isEmpty()) {
      return "no set of key columns places all " + keys + " stored keys where they live (the"
          + " query partitioned by an expression, not by key columns)";
    }
    return "the " + keys + " stored keys fit partitioned_by " + String.join(" or ",
        fitting.subList(0, Math.min(3, fitting.size())));
  }
}
