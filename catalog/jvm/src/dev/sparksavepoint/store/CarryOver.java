package dev.sparksavepoint.store;

import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.commit.PartitionCommit;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Store partitions committed again as the next version, unchanged (or emptied, for a replace
 * that left them without rows): one Spark job, one task per store partition. A batch that
 * changes no state carries every partition over ({@link #commitAll}); a write carries over what
 * its tasks did not touch ({@code write.UntouchedPartitions}). A partition carried over unchanged
 * reads none of its entries where it is HDFS-backed ({@link StatePartition#openFor}): its next
 * version is an empty delta.
 */
public final class CarryOver {
  private CarryOver() {}

  /** One store partition to carry over; {@code clear}: empty it on the way. */
  public record Item(StoreSpec spec, int partition, boolean clear) implements Serializable {}

  /** How a partition is emptied (the write's own rules, e.g. both stores of a join side). */
  public interface Clearing extends Serializable {
    void clear(StatePartition store);
  }

  /** Commits the next version of every store partition of {@code batch}, unchanged. */
  public static List<PartitionCommit> commitAll(StoreBatch batch, String description) {
    List<Item> items = new ArrayList<>();
    for (StoreSpec spec : batch.stores()) {
      for (int p = 0; p < spec.numPartitions(); p++) items.add(new Item(spec, p, false));
    }
    return commit(batch, items, null, description);
  }

  /**
   * Every store partition of {@code batch} that none of {@code done} commits; those of
   * {@code cleared} are to be emptied.
   */
  public static List<Item> missing(
      StoreBatch batch, List<PartitionCommit> done, List<StoreSpec> cleared) {
    List<Item> items = new ArrayList<>();
    for (StoreSpec spec : batch.stores()) {
      for (int p = 0; p < spec.numPartitions(); p++) {
        final int partition = p;
        if (done.stream().noneMatch(c -> c.covers(spec, partition))) {
          items.add(new Item(spec, p, cleared.contains(spec)));
        }
      }
    }
    return items;
  }

  /**
   * Commits the next version of each of {@code items}, emptied with {@code clearing} where the
   * item says so; returns their commits.
   */
  public static List<PartitionCommit> commit(
      StoreBatch batch, List<Item> items, Clearing clearing, String description) {
    if (items.isEmpty()) return List.of();
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkSession.active().sparkContext());
    sc.setJobDescription(description);
    try {
      return sc.parallelize(items, items.size())
          .map(item -> carry(batch, item, clearing))
          .collect();
    } finally {
      sc.setJobDescription(null);
    }
  }

  private static PartitionCommit carry(StoreBatch batch, Item item, Clearing clearing) {
    try (StatePartition store =
        item.clear()
            ? StatePartition.open(batch, item.spec(), item.partition())
            : StatePartition.openFor(batch, item.spec(), item.partition(), List.of())) {
      try {
        if (item.clear()) clearing.clear(store);
        return store.commit();
      } catch (RuntimeException e) {
        store.abort();
        throw e;
      }
    }
  }
}
