package dev.sparksavepoint.upgrade;

import dev.sparksavepoint.checkpoint.ColumnFamilies;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.StoreSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.spark.sql.execution.streaming.state.StateStoreColFamilySchema;
import org.apache.spark.sql.types.StructType;

/**
 * How well an old operator's state fits a new operator: not at all (another kind or other
 * stores), exactly, with changes (value columns added, widened or dropped; state variables
 * added or dropped), or incompatibly (a changed key, a value column whose type its values do
 * not fit in), with the changes and reasons as lines for the report.
 */
public record OperatorFit(
    Level level, List<String> changes, List<String> reasons, List<SchemaChange> valueChanges) {

  /** From best to worst; NONE: the operators are not of the same kind and stores. */
  public enum Level {
    EXACT,
    CHANGES,
    INCOMPATIBLE,
    NONE
  }

  /** True when the new operator keeps less than the old one had (columns, variables). */
  public boolean dropsState() {
    return changes.stream().anyMatch(c -> c.endsWith(" dropped"));
  }

  /** One operator and its stores, as of a batch. */
  public record Side(Operator op, List<StoreSpec> stores) {
    String kindName() {
      return op.name();
    }
  }

  static OperatorFit of(Side old, Side neu) {
    List<String> changes = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    List<SchemaChange> values = new ArrayList<>();
    if (!old.kindName().equals(neu.kindName())
        || !old.op().storeNames().equals(neu.op().storeNames())) {
      return new OperatorFit(Level.NONE, changes, reasons, values);
    }
    for (int i = 0; i < neu.stores().size(); i++) {
      StoreSpec was = old.stores().get(i);
      StoreSpec now = neu.stores().get(i);
      String store = now.storeName().equals("default") ? "" : " store " + now.storeName();
      if (!SchemaChange.sameType(was.keySchema(), now.keySchema())) {
        reasons.add(
            "the key"
                + store
                + " changed from "
                + sql(was.keySchema())
                + " to "
                + sql(now.keySchema())
                + ": state is found by its key, so it cannot move");
        continue;
      }
      if (!SchemaChange.sameNames(was.keySchema(), now.keySchema())) {
        changes.add(
            "the key"
                + store
                + " "
                + sql(was.keySchema())
                + " is now "
                + sql(now.keySchema())
                + " (same types, other names): each key keeps its state");
      }
      if (was.families() != null && now.families() != null) {
        compareFamilies(was.families(), now.families(), changes, reasons);
        values.add(null);
        continue;
      }
      SchemaChange value = SchemaChange.of(was.valueSchema(), now.valueSchema());
      values.add(value);
      describe(value, "value" + store + " column ", changes, reasons);
    }
    Level level =
        !reasons.isEmpty() ? Level.INCOMPATIBLE : changes.isEmpty() ? Level.EXACT : Level.CHANGES;
    return new OperatorFit(level, changes, reasons, values);
  }

  private static void describe(
      SchemaChange value, String what, List<String> changes, List<String> reasons) {
    for (String c : value.added()) changes.add(what + c + " added");
    for (String c : value.widened()) changes.add(what + c + " (widened)");
    for (String c : value.dropped()) changes.add(what + c + " dropped");
    for (String c : value.incompatible()) {
      reasons.add(what + c + ": its values do not fit the new type");
    }
  }

  /** transformWithState: state variables (column families) by name. */
  private static void compareFamilies(
      ColumnFamilies was, ColumnFamilies now, List<String> changes, List<String> reasons) {
    TreeSet<String> names = new TreeSet<>(was.names());
    names.addAll(now.names());
    for (String name : names) {
      if (name.startsWith("$") || name.equals("default")) continue; // Spark's own families
      StateStoreColFamilySchema a = was.schema(name);
      StateStoreColFamilySchema b = now.schema(name);
      if (a == null) {
        changes.add("state variable " + name + " added (starts empty)");
      } else if (b == null) {
        changes.add("state variable " + name + " dropped");
      } else if (!SchemaChange.sameType(a.keySchema(), b.keySchema())
          || !SchemaChange.sameNames(a.keySchema(), b.keySchema())) {
        reasons.add(
            "state variable "
                + name
                + ": its key changed from "
                + sql(a.keySchema())
                + " to "
                + sql(b.keySchema()));
      } else {
        SchemaChange value = SchemaChange.of(a.valueSchema(), b.valueSchema());
        if (!value.unchanged()) {
          describe(value, "state variable " + name + " column ", changes, reasons);
        }
      }
    }
  }

  private static String sql(StructType schema) {
    return schema.toDDL();
  }
}
