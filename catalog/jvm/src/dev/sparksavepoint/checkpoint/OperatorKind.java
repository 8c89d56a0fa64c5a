package dev.sparksavepoint.checkpoint;

import java.util.Locale;

/**
 * What a stateful operator is, from the name Spark records for it, and what the tool can do with
 * its state. Every site that treats operators differently asks the kind, so a new operator is
 * one constant here (docs/architecture.md, "Adding an operator kind").
 *
 * <pre>{@code
 * OperatorKind.of("stateStoreSave")           // AGG: uid agg_N
 * OperatorKind.of("dedupeWithinWatermark")    // DEDUP
 * OperatorKind.AGG.lookups()                  // true: key predicates become point lookups
 * }</pre>
 */
public enum OperatorKind {
  AGG("agg", "streaming aggregation", "aggregation", Writes.STORE, true, true, true),
  SESSION(
      "session", "session window aggregation", "session_window", Writes.NONE, false, false, true),
  LIMIT("limit", "streaming limit", "limit", Writes.NONE, false, false, false),
  DEDUP("dedup", "dropDuplicates", "dedup", Writes.STORE, true, true, true),
  JOIN("join", "stream-stream join", "join_store", Writes.JOIN_SIDES, false, true, false),
  GROUPSTATE("groupstate", "groupsWithState", "group_state", Writes.STORE, true, true, true),
  TWS("tws", "transformWithState", "store", Writes.VARIABLES, false, true, false),
  /** An operator this version does not know: read through Spark's reader, never written. */
  OTHER("op", null, "store", Writes.NONE, false, false, false);

  /** Which of an operator's tables can be written. */
  public enum Writes {
    /** Its one store's table (agg_N.default, ...). */
    STORE,
    /** The join side tables (left, right), which keep both stores of a side consistent. */
    JOIN_SIDES,
    /** Each state variable's table and the timers (a transformWithState operator's). */
    VARIABLES,
    NONE
  }

  private final String prefix;
  private final String description;
  private final String stateKind;
  private final Writes writes;
  private final boolean lookups;
  private final boolean rehashable;
  private final boolean placedByInput;

  OperatorKind(
      String prefix,
      String description,
      String stateKind,
      Writes writes,
      boolean lookups,
      boolean rehashable,
      boolean placedByInput) {
    this.prefix = prefix;
    this.description = description;
    this.stateKind = stateKind;
    this.writes = writes;
    this.lookups = lookups;
    this.rehashable = rehashable;
    this.placedByInput = placedByInput;
  }

  /** The kind of the operator Spark records as {@code name} (operator metadata, inference). */
  public static OperatorKind of(String name) {
    return switch (name) {
      case "stateStoreSave" -> AGG;
      case "sessionWindowStateStoreSaveExec" -> SESSION;
      case "globalLimit" -> LIMIT;
      case "dedupe", "dedupeWithinWatermark" -> DEDUP;
      case "symmetricHashJoin" -> JOIN;
      case "flatMapGroupsWithState", "applyInPandasWithState" -> GROUPSTATE;
      case "transformWithStateExec",
          "transformWithStateInPandasExec",
          "transformWithStateInPySparkExec" ->
          TWS;
      default -> guess(name);
    };
  }

  /** The kind of an operator name this version does not know, by what it contains. */
  private static OperatorKind guess(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.contains("transformwithstate")) return TWS;
    if (lower.contains("dedup")) return DEDUP;
    if (lower.contains("join")) return JOIN;
    return OTHER;
  }

  /** The uid prefix: {@code agg} in {@code agg_0}. */
  public String prefix() {
    return prefix;
  }

  /** The operator in words ({@code "stream-stream join"}); {@code spark}'s name if unknown. */
  public String describe(String sparkName) {
    return description == null ? sparkName : description;
  }

  /** What a store table of this kind holds, for the metadata table. */
  public String stateKind() {
    return stateKind;
  }

  /** Which of its tables can be written. */
  public Writes writes() {
    return writes;
  }

  /** True when a filter pinning every key column reads by point lookups (one entry per key). */
  public boolean lookups() {
    return lookups;
  }

  /** True when its keys can be rehashed onto another partition count (restore, upgrade). */
  public boolean rehashable() {
    return rehashable;
  }

  /**
   * True when a query started before Spark 3.3 placed its keys by the partitioning of its
   * input rather than by all key columns (SPARK-38204); a join always places by all of them.
   */
  public boolean placedByInput() {
    return placedByInput;
  }

  /** True when its state lives in column families, which only RocksDB has. */
  public boolean needsColumnFamilies() {
    return this == TWS;
  }

  /** True when its aggregation buffers take the query's value column names. */
  public boolean hasValueNames() {
    return this == AGG;
  }
}
