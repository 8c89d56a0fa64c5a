package dev.sparksavepoint.checkpoint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One stateful operator of a checkpoint, known by its uid, and the state tables it holds.
 *
 * <p>Spark has no operator uids, so the uid is the operator's kind plus its operator id:
 * {@code agg_0}, {@code dedup_1}, {@code join_2}, {@code groupstate_3}, {@code tws_4},
 * {@code session_5}, {@code limit_6} ({@code op_N} for anything else). The plain operator id works
 * as a namespace too (it needs backticks in SQL: {@code savepoint.`0`.default}). {@code inferred}
 * lists the facts that were inferred because the checkpoint has no operator metadata (Spark 3.5).
 */
public record Operator(
    long id,
    String name,
    int metadataVersion,
    int numPartitions,
    List<String> storeNames,
    OperatorProperties properties,
    List<String> inferred) {

  /** An operator described by its operator metadata (nothing inferred). */
  public Operator(
      long id,
      String name,
      int metadataVersion,
      int numPartitions,
      List<String> storeNames,
      OperatorProperties properties) {
    this(id, name, metadataVersion, numPartitions, storeNames, properties, List.of());
  }

  /** The name of the table that lists a transformWithState operator's registered timers. */
  public static final String TIMERS_TABLE = "timers";

  /** The user's transformWithState state variables, name to type ({@code ValueState}, ...). */
  public Map<String, String> stateVariables() {
    return properties.userVariables();
  }

  /** True for a transformWithState operator that registers timers. */
  public boolean hasTimers() {
    return properties.hasTimers();
  }

  /**
   * True for a dropDuplicates whose schema file records the whole input row as its value
   * (Spark 3.2 to 3.4, SPARK-39650) while its rows hold a placeholder of one null field: it is
   * read and written with the placeholder value Spark 3.5 and later record.
   */
  public boolean recordsWholeRowAsValue() {
    return inferred.contains(OperatorInference.WHOLE_ROW_VALUE);
  }

  /**
   * False when the operator's state has no schema file (Spark before 3.1 wrote none), so that
   * Spark's state reader cannot decode it.
   */
  public boolean hasStateSchema() {
    return !inferred.contains(OperatorInference.NO_STATE_SCHEMA);
  }

  /**
   * The schema file the operator's state lacks when it has none ({@link #hasStateSchema}):
   * {@code state/<id>/0/_metadata/schema}, under the store's folder for a join.
   */
  public String stateSchemaFile() {
    String store =
        kind() == OperatorKind.JOIN && !storeNames.isEmpty() ? storeNames.get(0) + "/" : "";
    return "state/" + id + "/0/" + store + OperatorInference.SCHEMA_FILE;
  }

  /** What the operator is, and what the tool can do with its state. */
  public OperatorKind kind() {
    return OperatorKind.of(name);
  }

  /** What the operator is, in words: {@code "session window aggregation"}, Spark's name else. */
  public String description() {
    return kind().describe(name);
  }

  public String uid() {
    return kind().prefix() + "_" + id;
  }

  /** True when {@code name} is this operator's uid or its plain operator id. */
  public boolean answersTo(String name) {
    return name.equalsIgnoreCase(uid()) || name.equals(Long.toString(id));
  }

  /** Table name to state reference, in listing order. */
  public Map<String, StateRef> tables() {
    Map<String, StateRef> tables = new LinkedHashMap<>();
    if (kind() == OperatorKind.JOIN) {
      tables.put("left", StateRef.joinSide(id, "left"));
      tables.put("right", StateRef.joinSide(id, "right"));
      for (String store : storeNames) tables.put(tableName(store), StateRef.store(id, store));
    } else if (!stateVariables().isEmpty() || kind() == OperatorKind.TWS) {
      for (String var : stateVariables().keySet()) {
        tables.put(tableName(var), StateRef.stateVar(id, var));
      }
      if (hasTimers() && !tables.containsKey(TIMERS_TABLE)) {
        tables.put(TIMERS_TABLE, StateRef.timers(id));
      }
    } else {
      for (String store : storeNames) tables.put(tableName(store), StateRef.store(id, store));
    }
    return tables;
  }

  public List<String> tableNames() {
    return new ArrayList<>(tables().keySet());
  }

  /** What kind of state a table of this operator holds, for the metadata table. */
  public String stateKind(String table, StateRef ref) {
    switch (ref.option()) {
      case "joinSide":
        return "join_side";
      case "readRegisteredTimers":
        return "timers";
      case "stateVarName":
        {
          String type = stateVariables().getOrDefault(ref.value(), "");
          if (type.startsWith("List")) return "list";
          if (type.startsWith("Map")) return "map";
          return "value";
        }
      default:
        return kind().stateKind();
    }
  }

  /** Store names such as {@code left-keyToNumValues} become {@code left_keyToNumValues}. */
  public static String tableName(String storeName) {
    return storeName.replaceAll("[^A-Za-z0-9_]", "_");
  }
}
