package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.Test;
import org.apache.spark.sql.types.StructType;

public class OperatorInferenceTest {
  private static String kind(String key, String value) {
    return kind(key, value, false);
  }

  private static String kind(String key, String value, boolean aggregationFormat1) {
    return OperatorInference.kindOf(
        key.isEmpty() ? new StructType() : StructType.fromDDL(key),
        StructType.fromDDL(value),
        aggregationFormat1);
  }

  @Test
  public void tellsOperatorsByTheShapeOfTheirState() {
    assertEquals("dedupe", kind("event_id BIGINT", "__dummy__ VOID"));
    assertEquals("dedupeWithinWatermark", kind("event_id BIGINT", "expiresAtMicros BIGINT"));
    assertEquals(
        "flatMapGroupsWithState",
        kind("user STRING", "groupState STRUCT<cnt: BIGINT>, timeoutTimestamp BIGINT"));
    assertEquals("stateStoreSave", kind("user STRING", "count BIGINT, sum BIGINT"));
    assertEquals(
        "stateStoreSave",
        kind("window STRUCT<start: TIMESTAMP, end: TIMESTAMP>, user STRING", "count BIGINT"));
    assertEquals(
        "stateStoreSave", kind("user STRING", "user STRING, max DOUBLE", true), "format v1");
    assertEquals(
        "sessionWindowStateStoreSaveExec",
        kind(
            "sessionId STRING, userId STRING, sessionStartTime TIMESTAMP",
            "session_window STRUCT<start: TIMESTAMP, end: TIMESTAMP>, sessionId STRING, count"
                + " BIGINT"));
    assertEquals("globalLimit", kind("key VOID", "value BIGINT"), "streaming limit");
  }

  @Test
  public void tellsDropDuplicatesThatRecordedTheWholeRowFromAggregationsOfFormat1() {
    assertEquals("dedupe", kind("_1 STRING", "_1 STRING, _2 INT"), "Spark 3.3");
    assertEquals(
        "dedupe",
        kind("key1 INT, key2 INT", "key1 INT, key2 INT, value INT", true),
        "Spark 3.2, a column that is no aggregation buffer");
    assertEquals(
        "dedupe",
        kind("user STRING", "user STRING, max DOUBLE", false),
        "aggregation state format 2: values hold no grouping column");
    assertTrue(
        OperatorInference.holdsWholeRow(
            StructType.fromDDL("a INT NOT NULL"), StructType.fromDDL("a INT, b INT")),
        "nullability aside");
    assertTrue(
        !OperatorInference.holdsWholeRow(
            StructType.fromDDL("a INT"), StructType.fromDDL("a BIGINT, b INT")),
        "same names, other types");
  }

  @Test
  public void leavesOtherShapesUnknown() {
    assertEquals("unknown", kind("user STRING", "total BIGINT"), "not a buffer name");
    assertEquals("unknown", kind("user STRING", "user STRING"), "only grouping columns");
    assertEquals("unknown", kind("", "value BIGINT"), "an empty key");
  }
}
