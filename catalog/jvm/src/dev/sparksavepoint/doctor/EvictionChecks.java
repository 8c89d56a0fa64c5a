package dev.sparksavepoint.doctor;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.StateReadability;
import dev.sparksavepoint.checkpoint.StateRef;
import dev.sparksavepoint.read.EventTime;
import dev.sparksavepoint.read.FlatSchema;
import dev.sparksavepoint.read.StateSource;
import java.util.Map;
import java.util.function.Consumer;

/**
 * State that only grows: an aggregation, dropDuplicates or join none of whose state tables has
 * a watermarked event-time column ({@link EventTime}) keeps every key it has seen, since Spark
 * evicts such state only by the watermark. Reads schema files only (no state); a checkpoint whose
 * schemas do not read is left to the other checks.
 */
final class EvictionChecks {
  private EvictionChecks() {}

  static void run(Checkpoint checkpoint, long batchId, Consumer<Finding> found) {
    for (Operator op : checkpoint.operators(batchId)) {
      if (!EventTime.agesByWatermark(op.kind()) || evicted(checkpoint, op, batchId)) continue;
      found.accept(
          Finding.of(
              Check.STATE_NEVER_EVICTED,
              batchId,
              op.id(),
              null,
              null,
              op.uid()
                  + " ("
                  + op.kind().describe(op.name())
                  + "): no watermark evicts its state, so it keeps every key it has seen and"
                  + " grows with each new one"));
    }
  }

  /** Whether one of the operator's tables has a column the watermark evicts by. */
  private static boolean evicted(Checkpoint checkpoint, Operator op, long batchId) {
    if (!StateReadability.readable(checkpoint, op, batchId)) return true; // cannot tell
    String location = checkpoint.location();
    for (Map.Entry<String, StateRef> table : op.tables().entrySet()) {
      Map<String, String> options = table.getValue().options(location, batchId);
      var schema = StateSource.schema(checkpoint, op, table.getKey(), batchId, options);
      if (EventTime.of(op, new FlatSchema(schema)) != null) return true;
    }
    return false;
  }
}
