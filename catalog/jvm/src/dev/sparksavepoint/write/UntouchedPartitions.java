package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.store.CarryOver;
import dev.sparksavepoint.store.CarryOver.Item;
import dev.sparksavepoint.store.PlannedChanges;
import dev.sparksavepoint.store.StatePartition;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Every store partition a write's tasks did not commit (other operators and stores, and
 * partitions of the edited store that got no rows) still needs version N+2. One Spark job
 * commits them ({@link CarryOver}), one task per store partition: unchanged, or emptied when
 * the write replaces the edited store's whole content.
 */
final class UntouchedPartitions {
  private UntouchedPartitions() {}

  /** Commits the missing partitions; returns their commits. */
  static List<PartitionCommit> commit(WritePlan plan, List<PartitionCommit> done, boolean replace) {
    return CarryOver.commit(
        plan,
        CarryOver.missing(plan, done, replace ? plan.editedStores() : List.of()),
        store -> StateEdits.empty(plan, store),
        "savepoint: commit untouched state partitions of " + plan.uid() + "." + plan.state());
  }

  /**
   * For a dry run (or a transaction's statement) of a replace: what emptying the edited
   * stores' partitions that got no rows would remove (other stores would be carried over
   * unchanged).
   */
  static List<PlannedChanges> plannedClears(WritePlan plan, List<PlannedChanges> done) {
    List<Item> items = new ArrayList<>();
    for (StoreSpec spec : plan.editedStores()) {
      for (int p = 0; p < spec.numPartitions(); p++) {
        final int partition = p;
        if (done.stream()
            .noneMatch(
                c ->
                    c.operatorId() == spec.operatorId()
                        && c.storeName().equals(spec.storeName())
                        && c.partition() == partition)) {
          items.add(new Item(spec, p, true));
        }
      }
    }
    if (items.isEmpty()) return List.of();
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkSession.active().sparkContext());
    sc.setJobDescription("savepoint: dry run of emptying " + plan.uid() + "." + plan.state());
    try {
      return sc.parallelize(items, items.size())
          .map(
              item -> {
                String family = item.spec().equals(plan.edited()) ? plan.editedFamily() : "";
                try (StatePartition store =
                    StatePartition.openReadOnly(
                        plan,
                        item.spec(),
                        item.partition(),
                        family,
                        plan.stagingFolder(),
                        plan.earlier())) {
                  try {
                    StateEdits.empty(plan, store);
                    return store.endReadOnly();
                  } catch (RuntimeException e) {
                    store.abort();
                    throw e;
                  }
                }
              })
          .collect();
    } finally {
      sc.setJobDescription(null);
    }
  }
}
