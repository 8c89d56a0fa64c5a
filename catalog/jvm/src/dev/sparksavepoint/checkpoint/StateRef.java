package dev.sparksavepoint.checkpoint;

import java.util.HashMap;
import java.util.Map;

/**
 * What one state table reads: the options of Spark's {@code statestore} data source (named
 * verbatim) that select an operator's store, join side, state variable or timers.
 */
public record StateRef(long operatorId, String option, String value) {

  public static StateRef store(long operatorId, String storeName) {
    return new StateRef(operatorId, "storeName", storeName);
  }

  public static StateRef joinSide(long operatorId, String side) {
    return new StateRef(operatorId, "joinSide", side);
  }

  public static StateRef stateVar(long operatorId, String name) {
    return new StateRef(operatorId, "stateVarName", name);
  }

  public static StateRef timers(long operatorId) {
    return new StateRef(operatorId, "readRegisteredTimers", "true");
  }

  /** The {@code statestore} reader options for this state at {@code batchId}. */
  public Map<String, String> options(String checkpoint, long batchId) {
    Map<String, String> options = new HashMap<>();
    options.put("path", checkpoint);
    options.put("batchId", Long.toString(batchId));
    options.put("operatorId", Long.toString(operatorId));
    options.put(option, value);
    return options;
  }
}
