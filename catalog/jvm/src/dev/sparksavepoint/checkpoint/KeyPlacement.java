package dev.sparksavepoint.checkpoint;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Which of a state's key columns place a key in its state partition: {@code pmod(hash(those
 * columns), numPartitions)}.
 *
 * <p>Since Spark 3.3 (SPARK-38204) a stateful operator places every key by all its grouping
 * columns ("strict distribution"). Before, an operator kept whatever clustering its input had:
 * after {@code repartition(k1).groupBy(k1, k2)} the state of (k1, k2) lives in partition
 * {@code pmod(hash(k1), n)}. Spark 3.3+ keeps that layout for a checkpoint whose offset log
 * does not record {@value #STRICT_CONF} as true (checkpoints started before 3.3: the setting is
 * then false for the query's life). Stream-stream joins were always strict. In such a
 * "non-strict" checkpoint, where a key lives is a fact of the query, not of the checkpoint: the
 * user names the columns ({@code partitioned_by}), checked against every stored key
 * ({@code read.PlacementCheck}).
 *
 * @param columns indexes of the placing columns among the key columns, in hash order; null
 *     for all of them in key order
 * @param strict true when the checkpoint says so (strict distribution, or a join)
 */
public record KeyPlacement(int[] columns, boolean strict) implements Serializable {
  /** The offset-log conf that records the strict distribution (absent before Spark 3.3). */
  public static final String STRICT_CONF =
      "spark.sql.streaming.statefulOperator.useStrictDistribution";

  /** Strict: every key column places the key. */
  public static final KeyPlacement STRICT = new KeyPlacement(null, true);

  /** True when the checkpoint's query places {@code op}'s keys by all key columns. */
  public static boolean isStrict(Checkpoint ckpt, Operator op, long batchId) {
    return op.kind() == OperatorKind.JOIN
        || Boolean.parseBoolean(ckpt.recordedConf(batchId).getOrDefault(STRICT_CONF, "false"));
  }

  /** Placement by the given key column indexes, on a non-strict checkpoint. */
  public static KeyPlacement given(int[] columns) {
    return new KeyPlacement(columns.clone(), false);
  }

  /** True when all key columns, in key order, place a key (strict, or given so). */
  public boolean byAllColumns(int keyColumns) {
    return columns == null
        || Arrays.equals(columns, java.util.stream.IntStream.range(0, keyColumns).toArray());
  }

  /** The placing columns among {@code keyNames}. */
  public List<String> names(List<String> keyNames) {
    if (columns == null) return keyNames;
    return Arrays.stream(columns).mapToObj(keyNames::get).collect(Collectors.toList());
  }

  /** The placing column indexes among {@code keyColumns} key columns. */
  public int[] indexes(int keyColumns) {
    return columns == null
        ? java.util.stream.IntStream.range(0, keyColumns).toArray()
        : columns.clone();
  }
}
