package dev.sparksavepoint.checkpoint;

import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.execution.streaming.state.StateStoreColFamilySchema;
import org.apache.spark.sql.types.StructType;

/**
 * One writable table of a transformWithState operator: a state variable (ValueState, ListState,
 * MapState) or the operator's timers, and the column families Spark keeps for it (mirroring
 * ValueStateImpl, ListStateImpl + ListStateMetricsImpl, MapStateImpl and TimerStateImpl):
 *
 * <ul>
 *   <li>value: family {@code <name>}, key = grouping key, value = the state row;
 *   <li>list: multi-valued family {@code <name>} (one value per element, appended with
 *       {@code merge}) and {@code $rowCounter_<name>} (grouping key -> element count);
 *   <li>map: family {@code <name>}, key = {@code struct<key: grouping key, userKey: map key>};
 *   <li>timers: {@code $eventTimers_keyToTimestamp} ({@code struct<key, expiryTimestampMs>})
 *       and its inverse index {@code $eventTimers_timestampToKey} (or {@code $procTimers_*}),
 *       both with an empty value.
 * </ul>
 */
public final class TwsVariable implements Serializable {
  public enum Kind { VALUE, LIST, MAP, TIMERS }

  public static final String ROW_COUNTER_PREFIX = "$rowCounter_";
  private static final String KEY_TO_TIMESTAMP = "_keyToTimestamp";
  private static final String TIMESTAMP_TO_KEY = "_timestampToKey";

  private final Kind kind;
  private final String name;
  private final String family;
  private final String secondFamily;
  private final StructType groupingKey;
  private final StructType entryKey;
  private final StructType value;

  private TwsVariable(Kind kind, String name, String family, String secondFamily,
      StructType groupingKey, StructType entryKey, StructType value) {
    this.kind = kind;
    this.name = name;
    this.family = family;
    this.secondFamily = secondFamily;
    this.groupingKey = groupingKey;
    this.entryKey = entryKey;
    this.value = value;
  }

  /**
   * The variable a table of operator {@code op} edits.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_READ_ONLY_STATE for state with TTL
   *     and column families this version does not know; SAVEPOINT_CORRUPT_FILE when the
   *     operator properties do not say whether the variable has a TTL
   */
  public static TwsVariable of(String path, Operator op, TableOrigin origin,
      ColumnFamilies families) {
    StateRef ref = origin.ref();
    if (ref.option().equals("readRegisteredTimers")) return timers(path, op, origin, families);
    String name = ref.value();
    if (ttlEnabled(path, op, origin.batchId(), name)) {
      throw Errors.readOnlyState(path, op.uid(), origin.state(), "state variable " + name
          + " has a TTL; writing state with TTL is not supported yet (its TTL index column"
          + " families must be kept consistent).");
    }
    StateStoreColFamilySchema schema = families.schema(name);
    String type = op.stateVariables().getOrDefault(name, "");
    if (schema == null || type.isEmpty()) {
      throw Errors.readOnlyState(path, op.uid(), origin.state(), "its column family " + name
          + " is not in the state schema file.");
    }
    if (type.startsWith("List")) {
      return new TwsVariable(Kind.LIST, name, name, ROW_COUNTER_PREFIX + name,
          schema.keySchema(), null, schema.valueSchema());
    }
    if (type.startsWith("Map")) {
      StructType key = schema.keySchema();
      return new TwsVariable(Kind.MAP, name, name, null, struct(key, "key"),
          struct(key, "userKey"), schema.valueSchema());
    }
    if (type.startsWith("Value")) {
      return new TwsVariable(Kind.VALUE, name, name, null, schema.keySchema(), null,
          schema.valueSchema());
    }
    throw Errors.readOnlyState(path, op.uid(), origin.state(), "writing a " + type
        + " is not supported.");
  }

  private static TwsVariable timers(String path, Operator op, TableOrigin origin,
      ColumnFamilies families) {
    for (String family : families.names()) {
      if (family.endsWith(KEY_TO_TIMESTAMP)) {
        String inverse = family.substring(0, family.length() - KEY_TO_TIMESTAMP.length())
            + TIMESTAMP_TO_KEY;
        if (families.schema(inverse) == null) break;
        StructType key = families.schema(family).keySchema();
        return new TwsVariable(Kind.TIMERS, Operator.TIMERS_TABLE, family, inverse,
            struct(key, "key"), null, null);
      }
    }
    throw Errors.readOnlyState(path, op.uid(), origin.state(), "the operator's timer column"
        + " families are not in its state schema file.");
  }

  private static StructType struct(StructType parent, String field) {
    return (StructType) parent.apply(field).dataType();
  }

  /** Whether the variable has a TTL; refuses (fails closed) when the properties do not say. */
  private static boolean ttlEnabled(String path, Operator op, long batchId, String name) {
    OperatorProperties.Variable var = op.properties().variables().get(name);
    if (var != null && var.ttlEnabled() != null) return var.ttlEnabled();
    throw Errors.corruptFile(path, "state/" + op.id() + "/_metadata/v2/ (operatorPropertiesJson"
        + " of " + op.uid() + ", entry for batch " + batchId + " or the latest before it)",
        "batch " + batchId, new IOException("no ttlEnabled flag for state variable " + name),
        "It cannot be told whether " + name + " has a TTL, so it is not written. Restore the"
        + " file from a copy of the checkpoint.");
  }

  public Kind kind() {
    return kind;
  }

  public String name() {
    return name;
  }

  /** The main column family: the variable's own, or the timers' key-to-timestamp index. */
  public String family() {
    return family;
  }

  /** The list's row counter or the timers' timestamp-to-key index, or null. */
  public String secondFamily() {
    return secondFamily;
  }

  /** Every column family this table owns: what a replace empties. */
  public List<String> families() {
    List<String> all = new ArrayList<>();
    all.add(family);
    if (secondFamily != null) all.add(secondFamily);
    return all;
  }

  public StructType groupingKey() {
    return groupingKey;
  }

  /** The map's user key schema, or null. */
  public StructType entryKey() {
    return entryKey;
  }

  /** The value, list element or map value schema; null for timers. */
  public StructType value() {
    return value;
  }
}
