package dev.sparksavepoint.checkpoint;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The state partition of a stored key under another partition count, computed with Spark's own
 * partitioner ({@code HashPartitioning.partitionIdExpression}: {@code pmod(murmur3(grouping key),
 * n)}), exactly as the streaming query's shuffle places the key. The grouping key is what the
 * operator clusters by: the whole key of aggregation, dedup and group state stores, a join
 * store's join key (without {@code keyWithIndexToValue}'s index), and the {@code key} struct of
 * transformWithState's composite keys (map entries, timers). Hashing a struct hashes its fields
 * in order, so {@code key} hashes like the grouping columns themselves.
 */
public final class KeyPartitioner {
  private final UnsafeProjection partition;

  private KeyPartitioner(UnsafeProjection partition) {
    this.partition = partition;
  }

  /**
   * The partitioner of keys of {@code keySchema} in store {@code storeName} (column family
   * {@code family}) into {@code n} partitions.
   *
   * @throws IllegalArgumentException when the grouping key cannot be told (see
   *     {@link #groupingKey})
   */
  public static KeyPartitioner of(String storeName, String family, StructType keySchema, int n) {
    List<Expression> key = groupingKey(storeName, family, keySchema);
    if (key == null) {
      throw new IllegalArgumentException(
          "cannot tell the grouping key of " + family + " keys " + keySchema.simpleString());
    }
    Expression id =
        new HashPartitioning(CollectionConverters.asScala(key).toList(), n).partitionIdExpression();
    return new KeyPartitioner(
        UnsafeProjection.create(CollectionConverters.asScala(List.of(id)).toList()));
  }

  /**
   * The expressions that pick the grouping key out of a stored key, or null when the layout is
   * not known (an internal column family without a {@code key} or {@code groupingKey} field).
   */
  public static List<Expression> groupingKey(
      String storeName, String family, StructType keySchema) {
    StructField[] fields = keySchema.fields();
    for (String name : List.of("key", "groupingKey")) {
      if (keySchema.getFieldIndex(name).isDefined()
          && keySchema.apply(name).dataType() instanceof StructType type) {
        int index = (Integer) keySchema.getFieldIndex(name).get();
        return List.of(new BoundReference(index, type, true));
      }
    }
    if (family.startsWith("$") && !family.startsWith("$rowCounter_")) return null;
    int count = storeName.endsWith("keyWithIndexToValue") ? fields.length - 1 : fields.length;
    List<Expression> key = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      key.add(new BoundReference(i, fields[i].dataType(), fields[i].nullable()));
    }
    return key;
  }

  /** The partition of a stored key. */
  public int partition(UnsafeRow key) {
    return partition.apply(key).getInt(0);
  }
}
