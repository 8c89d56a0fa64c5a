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
 *   <li>value or map with a TTL: as above, the row ending in {@code ttlExpirationMs}, plus the
 *       index {@code $ttl_<name>} ({@code struct<expirationMs, elementKey>} -> empty);
 *   <li>timers: {@code $eventTimers_keyToTimestamp} ({@code struct<key, expiryTimestampMs>})
 *       and its inverse index {@code $eventTimers_timestampToKey} (or {@code $procTimers_*}),
 *       both with an empty value.
 * </ul>
 */
public final class TwsVariable implements Serializable {
  public enum Kind {
    VALUE,
    LIST,
    MAP,
    TIMERS
  }

  public static final String ROW_COUNTER_PREFIX = "$rowCounter_";

  /** The TTL index family of a variable with a TTL: {@code $ttl_<name>}. */
  public static final String TTL_PREFIX = "$ttl_";

  /** A list with a TTL: its smallest expiration and its element count per grouping key. */
  public static final String MIN_PREFIX = "$min_";

  public static final String COUNT_PREFIX = "$count_";

  /** The expiration field of a row of a variable with a TTL. */
  public static final String TTL_FIELD = "ttlExpirationMs";

  private static final String KEY_TO_TIMESTAMP = "_keyToTimestamp";
  private static final String TIMESTAMP_TO_KEY = "_timestampToKey";

  private final Kind kind;
  private final String name;
  private final String family;
  private final String secondFamily;
  private final StructType groupingKey;
  private final StructType entryKey;
  private final StructType value;

  /** True when the variable has a TTL: {@link #secondFamily} is its TTL index. */
  private final boolean ttl;

  private TwsVariable(
      Kind kind,
      String name,
      String family,
      String secondFamily,
      StructType groupingKey,
      StructType entryKey,
      StructType value) {
    this(kind, name, family, secondFamily, groupingKey, entryKey, value, false);
  }

  private TwsVariable(
      Kind kind,
      String name,
      String family,
      String secondFamily,
      StructType groupingKey,
      StructType entryKey,
      StructType value,
      boolean ttl) {
    this.ttl = ttl;
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
  public static TwsVariable of(
      String path, Operator op, TableOrigin origin, ColumnFamilies families) {
    StateRef ref = origin.ref();
    if (ref.option().equals("readRegisteredTimers")) return timers(path, op, origin, families);
    String name = ref.value();
    boolean ttl = ttlEnabled(path, op, origin.batchId(), name);
    StateStoreColFamilySchema schema = families.schema(name);
    String type = op.stateVariables().getOrDefault(name, "");
    if (schema == null || type.isEmpty()) {
      throw Errors.readOnlyState(
          path,
          op.uid(),
          origin.state(),
          "its column family " + name + " is not in the state schema file.");
    }
    if (ttl) return withTtl(path, op, origin, families, name, type, schema);
    if (type.startsWith("List")) {
      return new TwsVariable(
          Kind.LIST,
          name,
          name,
          ROW_COUNTER_PREFIX + name,
          schema.keySchema(),
          null,
          schema.valueSchema());
    }
    if (type.startsWith("Map")) {
      StructType key = schema.keySchema();
      return new TwsVariable(
          Kind.MAP,
          name,
          name,
          null,
          struct(key, "key"),
          struct(key, "userKey"),
          schema.valueSchema());
    }
    if (type.startsWith("Value")) {
      return new TwsVariable(
          Kind.VALUE, name, name, null, schema.keySchema(), null, schema.valueSchema());
    }
    throw Errors.readOnlyState(
        path, op.uid(), origin.state(), "writing a " + type + " is not supported.");
  }

  /**
   * A variable with a TTL: its rows carry {@code ttlExpirationMs}, and the index family
   * {@code $ttl_<name>} holds {@code (expirationMs, elementKey)} entries that Spark's TTL
   * clean-up scans: one per stored key for value and map state (OneToOneTTLState); for list
   * state one per grouping key at the list's smallest expiration, kept with it in
   * {@code $min_<name>}, and the element count in {@code $count_<name>} (OneToManyTTLState).
   */
  private static TwsVariable withTtl(
      String path,
      Operator op,
      TableOrigin origin,
      ColumnFamilies families,
      String name,
      String type,
      StateStoreColFamilySchema schema) {
    String index = TTL_PREFIX + name;
    boolean list = type.startsWith("List");
    StateStoreColFamilySchema indexSchema = families.schema(index);
    // the layout of Spark 4.1+: (expirationMs, elementKey as the stored key's struct)
    boolean known =
        indexSchema != null
            && indexSchema.keySchema().size() == 2
            && indexSchema.keySchema().fields()[1].dataType().equals(schema.keySchema())
            && schema.valueSchema().getFieldIndex(TTL_FIELD).isDefined()
            && (!list
                || (families.schema(MIN_PREFIX + name) != null
                    && families.schema(COUNT_PREFIX + name) != null));
    if (!known || !(list || type.startsWith("Value") || type.startsWith("Map"))) {
      throw Errors.readOnlyState(
          path,
          op.uid(),
          origin.state(),
          "state variable "
              + name
              + " is a "
              + type
              + " with a TTL whose index column families this version does not"
              + " know; it is not written.");
    }
    StructType key = schema.keySchema();
    boolean map = type.startsWith("Map");
    Kind kind = list ? Kind.LIST : map ? Kind.MAP : Kind.VALUE;
    return new TwsVariable(
        kind,
        name,
        name,
        index,
        map ? struct(key, "key") : key,
        map ? struct(key, "userKey") : null,
        schema.valueSchema(),
        true);
  }

  private static TwsVariable timers(
      String path, Operator op, TableOrigin origin, ColumnFamilies families) {
    for (String family : families.names()) {
      if (family.endsWith(KEY_TO_TIMESTAMP)) {
        String inverse =
            family.substring(0, family.length() - KEY_TO_TIMESTAMP.length()) + TIMESTAMP_TO_KEY;
        if (families.schema(inverse) == null) break;
        StructType key = families.schema(family).keySchema();
        return new TwsVariable(
            Kind.TIMERS, Operator.TIMERS_TABLE, family, inverse, struct(key, "key"), null, null);
      }
    }
    throw Errors.readOnlyState(
        path,
        op.uid(),
        origin.state(),
        "the operator's timer column" + " families are not in its state schema file.");
  }

  private static StructType struct(StructType parent, String field) {
    return (StructType) parent.apply(field).dataType();
  }

  /** Whether the variable has a TTL; refuses (fails closed) when the properties do not say. */
  private static boolean ttlEnabled(String path, Operator op, long batchId, String name) {
    OperatorProperties.Variable var = op.properties().variables().get(name);
    if (var != null && var.ttlEnabled() != null) return var.ttlEnabled();
    throw Errors.corruptFile(
        path,
        "state/"
            + op.id()
            + "/_metadata/v2/ (operatorPropertiesJson"
            + " of "
            + op.uid()
            + ", entry for batch "
            + batchId
            + " or the latest before it)",
        "batch " + batchId,
        new IOException("no ttlEnabled flag for state variable " + name),
        "It cannot be told whether "
            + name
            + " has a TTL, so it is not written. Restore the"
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

  /** True when the variable has a TTL ({@link #secondFamily} is its {@code $ttl_} index). */
  public boolean hasTtl() {
    return ttl;
  }

  /** The list's row counter, the timers' timestamp-to-key index, the TTL index, or null. */
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
