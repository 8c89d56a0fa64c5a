package dev.sparksavepoint.write;

import static dev.sparksavepoint.testing.Assert.assertEquals;

import dev.sparksavepoint.testing.Test;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

public class RowEncoderTest {
  private static final StructType KEY = StructType.fromDDL("user STRING");
  private static final StructType VALUE =
      StructType.fromDDL("groupState STRUCT<count: BIGINT, seen: BOOLEAN>, __dummy__ VOID");

  /** The flat row a statement gives: user, count, seen. */
  private static final GenericInternalRow FLAT =
      new GenericInternalRow(new Object[] {UTF8String.fromString("alice"), 3L, true});

  private static final DataType[] FLAT_TYPES = {
    org.apache.spark.sql.types.DataTypes.StringType,
    org.apache.spark.sql.types.DataTypes.LongType,
    org.apache.spark.sql.types.DataTypes.BooleanType
  };

  private static RowEncoder.Entries entries() {
    return new RowEncoder.StoreLayout(KEY, VALUE)
        .entries(i -> new BoundReference(i, FLAT_TYPES[i], true));
  }

  @Test
  public void storeLayoutFlattensKeyThenValue() {
    RowEncoder.StoreLayout layout = new RowEncoder.StoreLayout(KEY, VALUE);
    assertEquals(List.of("user", "count", "seen"), layout.columns());
    assertEquals(1, layout.strictColumns(), "key columns");
    assertEquals(1, layout.groupingColumns(), "grouping columns");
  }

  @Test
  public void keysAreTheBytesOfSparksOwnProjection() {
    UnsafeRow key = RowEncoder.project(entries().entryKey()).apply(FLAT);
    UnsafeRow expected =
        UnsafeProjection.create(KEY)
            .apply(new GenericInternalRow(new Object[] {UTF8String.fromString("alice")}));
    assertEquals(expected, key, "key bytes");
  }

  @Test
  public void valuesRebuildGroupStateAndVoidFields() {
    UnsafeRow value = RowEncoder.project(entries().value()).apply(FLAT);
    GenericInternalRow nested =
        new GenericInternalRow(
            new Object[] {new GenericInternalRow(new Object[] {3L, true}), null});
    assertEquals(UnsafeProjection.create(VALUE).apply(nested), value, "value bytes");
    assertEquals(3L, value.getStruct(0, 2).getLong(0));
  }

  @Test
  public void structNamesItsFields() {
    List<Expression> fields = new ArrayList<>(entries().entryKey());
    Expression struct = RowEncoder.struct(KEY, fields);
    assertEquals(KEY, struct.dataType(), "a struct of the key schema");
  }
}
