package dev.sparksavepoint.write;

import static dev.sparksavepoint.testing.Assert.assertEquals;

import dev.sparksavepoint.sql.SavepointExtensions;
import dev.sparksavepoint.testing.Test;
import java.util.Arrays;
import org.apache.spark.sql.types.StructType;

public class IncomingColumnsTest {
  private static final StructType TABLE =
      StructType.fromDDL("user STRING, count BIGINT, sum BIGINT");

  private static String sources(String given) {
    return Arrays.toString(IncomingColumns.sources(TABLE, StructType.fromDDL(given)));
  }

  @Test
  public void matchesByNameWhenEveryNameIsAColumn() {
    assertEquals("[2, 0, 1]", sources("count BIGINT, sum BIGINT, USER STRING"));
    assertEquals(
        "[3, 1, 0]",
        sources("sum BIGINT, count BIGINT, partition_id INT, user STRING"),
        "the metadata column is ignored");
    StructType keyed = StructType.fromDDL("partition_id INT, n BIGINT");
    assertEquals(
        "[1, 0]",
        Arrays.toString(
            IncomingColumns.sources(keyed, StructType.fromDDL("n BIGINT, partition_id INT"))),
        "unless a column has its name");
  }

  @Test
  public void matchesByPositionOtherwise() {
    assertEquals("[0, 1, 2]", sources("a STRING, b BIGINT, c BIGINT"));
    assertEquals("[0, 1, 2]", sources("a STRING, b BIGINT, c BIGINT, p INT"), "with partition");
    assertEquals("null", sources("a STRING, b BIGINT"), "too few");
    assertEquals(
        "null", sources("user STRING, user STRING, count BIGINT, sum BIGINT, x INT"), "too many");
  }

  @Test
  public void namesTheExtensionThatWidensKeys() {
    assertEquals(
        "spark.sql.extensions=" + SavepointExtensions.class.getName(),
        IncomingColumns.WIDENING_EXTENSION);
  }
}
