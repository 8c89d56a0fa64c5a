package dev.sparksavepoint.upgrade;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.KeyPlacement;
import dev.sparksavepoint.checkpoint.StateRef;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.read.PlacementCheck;
import dev.sparksavepoint.read.StateSource;
import dev.sparksavepoint.upgrade.OperatorMatching.Pair;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Whether a changed query finds the kept state where it lives, on a checkpoint whose query runs
 * without the strict distribution ({@link KeyPlacement}): there the new query's operator takes
 * each key from the partition its input's hash partitioning gives ({@link QueryPartitioning}),
 * so those columns must place every stored key where it lives ({@link PlacementCheck}). A new
 * query that dropped a {@code repartition(user)} would look for (user, item) in
 * {@code pmod(hash(user, item), n)} and find nothing.
 */
final class PlacementFit {
  private PlacementFit() {}

  /** Why the new query would not find some kept operators' stored keys; empty when it would. */
  static List<String> misfits(Checkpoint old, long batch, List<Pair> pairs, PlannedQuery planned) {
    Map<Long, List<String>> inputs = QueryPartitioning.of(planned.executed());
    List<String> misfits = new ArrayList<>();
    for (Pair pair : pairs) {
      String misfit = misfit(old, batch, pair, inputs);
      if (misfit != null) misfits.add(misfit);
    }
    return misfits;
  }

  /**
   * Why the new query would not find {@code pair}'s stored keys, or null when it would (or the
   * checkpoint places keys by all their columns).
   */
  private static String misfit(
      Checkpoint old, long batch, Pair pair, Map<Long, List<String>> inputs) {
    if (pair.old() == null
        || pair.neu() == null
        || pair.old().stores().isEmpty()
        || KeyPlacement.isStrict(old, pair.old().op(), batch)
        || !pair.old().op().kind().placedByInput()) {
      return null;
    }
    StoreSpec store = pair.old().stores().get(0);
    List<String> keys = List.of(store.keySchema().fieldNames());
    List<String> placing = inputs.get(pair.neu().op().id());
    String uid = pair.old().op().uid();
    if (placing == null) {
      return uid
          + ": the new query's input to it is not hash partitioned by columns, so it"
          + " would look for the stored keys elsewhere than where they live (the checkpoint"
          + " runs without the strict distribution)";
    }
    int[] columns = new int[placing.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = keys.indexOf(placing.get(i));
      if (columns[i] < 0) {
        return uid
            + ": the new query partitions its input by "
            + placing
            + ", not key columns"
            + " of its state "
            + keys;
      }
    }
    StateRef ref = pair.old().op().tables().get(store.storeName());
    if (ref == null) return null;
    Map<String, String> read = ref.options(old.location(), batch);
    PlacementCheck check =
        PlacementCheck.run(
            read,
            StateSource.schema(old, pair.old().op(), store.storeName(), batch, read),
            pair.old().op().numPartitions(),
            columns);
    long misplaced = check.misplaced(columns);
    if (misplaced == 0) return null;
    return uid
        + ": the new query partitions its input by "
        + String.join(",", placing)
        + ", which places "
        + misplaced
        + " stored key(s) elsewhere than where they live (the"
        + " checkpoint runs without the strict distribution, so keys stay where the old query's"
        + " input put them: "
        + check.fits(new ArrayList<>(keys))
        + "); partition the new"
        + " query's input as the old one did";
  }
}
