package dev.sparksavepoint.upgrade;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * How one state schema (a store's value, or a state variable's) becomes another: per new column
 * the old column it takes its values from (by name, in order), whether the type widens
 * losslessly, and which columns are new or dropped. Incompatible when a column keeps its name
 * but not a type its values fit in.
 *
 * <p>Example: {@code SchemaChange.of(old, new)} for {@code count BIGINT, sum BIGINT} to {@code
 * count BIGINT, sum BIGINT, max INT}: column 2 is added.
 */
public record SchemaChange(
    int[] sources,
    List<String> added,
    List<String> widened,
    List<String> dropped,
    List<String> incompatible) {

  /** True when the schemas are the same, column for column (names and types). */
  public boolean unchanged() {
    return added.isEmpty() && widened.isEmpty() && dropped.isEmpty() && incompatible.isEmpty();
  }

  public boolean compatible() {
    return incompatible.isEmpty();
  }

  /** The change from {@code from} to {@code to}. */
  public static SchemaChange of(StructType from, StructType to) {
    StructField[] old = from.fields();
    boolean[] used = new boolean[old.length];
    int[] sources = new int[to.size()];
    List<String> added = new ArrayList<>();
    List<String> widened = new ArrayList<>();
    List<String> incompatible = new ArrayList<>();
    for (int i = 0; i < to.size(); i++) {
      StructField field = to.fields()[i];
      int source = -1;
      for (int j = 0; j < old.length && source < 0; j++) {
        if (!used[j] && old[j].name().equals(field.name())) source = j;
      }
      sources[i] = source;
      if (source < 0) {
        added.add(field.name() + " " + field.dataType().sql());
        continue;
      }
      used[source] = true;
      DataType was = old[source].dataType();
      if (sameType(was, field.dataType())) continue;
      String change = field.name() + " " + was.sql() + " -> " + field.dataType().sql();
      (widens(was, field.dataType()) ? widened : incompatible).add(change);
    }
    List<String> dropped = new ArrayList<>();
    for (int j = 0; j < old.length; j++) {
      if (!used[j]) dropped.add(old[j].name() + " " + old[j].dataType().sql());
    }
    return new SchemaChange(sources, added, widened, dropped, incompatible);
  }

  /** Equal types, ignoring nullability and the names inside structs. */
  public static boolean sameType(DataType a, DataType b) {
    return DataType.equalsStructurally(a, b, true);
  }

  /** Equal types and field names (nullability aside), at every level. */
  public static boolean sameNames(DataType a, DataType b) {
    return DataType.equalsIgnoreCaseAndNullability(a, b)
        && a.asNullable().catalogString().equals(b.asNullable().catalogString());
  }

  /** True when every value of type {@code from} is a value of type {@code to}. */
  public static boolean widens(DataType from, DataType to) {
    if (from instanceof ByteType) {
      return to instanceof ShortType
          || to instanceof IntegerType
          || to instanceof LongType
          || to instanceof DoubleType
          || fitsDecimal(3, to);
    }
    if (from instanceof ShortType) {
      return to instanceof IntegerType
          || to instanceof LongType
          || to instanceof DoubleType
          || fitsDecimal(5, to);
    }
    if (from instanceof IntegerType) {
      return to instanceof LongType || to instanceof DoubleType || fitsDecimal(10, to);
    }
    if (from instanceof LongType) return fitsDecimal(20, to);
    if (from instanceof FloatType) return to instanceof DoubleType;
    if (from instanceof DecimalType d && to instanceof DecimalType e) {
      return e.scale() >= d.scale() && e.precision() - e.scale() >= d.precision() - d.scale();
    }
    return false;
  }

  private static boolean fitsDecimal(int digits, DataType to) {
    return to instanceof DecimalType d && d.precision() - d.scale() >= digits;
  }
}
