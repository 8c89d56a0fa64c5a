package dev.sparksavepoint.read;

import static dev.sparksavepoint.testing.Assert.assertEquals;

import dev.sparksavepoint.testing.Test;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

public class FlatSchemaTest {
  /** applyInPandasWithState's state as the statestore reader gives it. */
  private static final StructType GROUP_STATE =
      StructType.fromDDL(
          "key STRUCT<user: STRING>,"
              + " value STRUCT<groupState: STRUCT<user: STRING, total: BIGINT>, __dummy__: VOID>,"
              + " partition_id INT");

  @Test
  public void flattensKeyValueAndGroupState() {
    FlatSchema flat = new FlatSchema(GROUP_STATE);
    assertEquals(
        List.of("user", "value_user", "total"),
        List.of(flat.schema().fieldNames()),
        "a taken name is prefixed, void dropped");
    assertEquals("state key field", flat.schema().apply("user").getComment().get());
    assertEquals("state partition", flat.partitionColumn().getComment().get());
    assertEquals(
        List.of("user", "total"),
        FlatSchema.leafNames((StructType) GROUP_STATE.apply("value").dataType()));
  }

  @Test
  public void projectsNestedRowsToFlatRows() {
    GenericInternalRow key = new GenericInternalRow(new Object[] {UTF8String.fromString("bob")});
    GenericInternalRow inner =
        new GenericInternalRow(new Object[] {UTF8String.fromString("bob"), 7L});
    GenericInternalRow value = new GenericInternalRow(new Object[] {inner, null});
    InternalRow row = new GenericInternalRow(new Object[] {key, value, 3});
    FlatSchema flat = new FlatSchema(GROUP_STATE);
    InternalRow out = flat.projection().apply(row);
    assertEquals("bob", out.getUTF8String(0).toString());
    assertEquals(7L, out.getLong(2));
    assertEquals(3, out.numFields(), "partition_id only when asked for");
    InternalRow withPartition =
        flat.pruned(StructType.fromDDL("partition_id INT")).projection().apply(row);
    assertEquals(3, withPartition.getInt(3));
  }

  @Test
  public void readsPartitionIdOnlyWhenRequired() {
    FlatSchema flat = new FlatSchema(GROUP_STATE);
    assertEquals(
        List.of("user", "value_user", "total"),
        List.of(flat.pruned(StructType.fromDDL("total BIGINT")).readSchema().fieldNames()));
    assertEquals(
        List.of("user", "value_user", "total", "partition_id"),
        List.of(
            flat.pruned(StructType.fromDDL("partition_id INT, user STRING"))
                .readSchema()
                .fieldNames()));
    FlatSchema keyed =
        new FlatSchema(
            StructType.fromDDL(
                "key STRUCT<partition_id: INT>, value STRUCT<n: BIGINT>, partition_id INT"));
    assertEquals(
        List.of("partition_id", "n"),
        List.of(keyed.pruned(StructType.fromDDL("partition_id INT")).readSchema().fieldNames()),
        "a key column of that name hides the metadata column");
  }
}
