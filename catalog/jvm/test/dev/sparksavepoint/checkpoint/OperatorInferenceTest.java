package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;

import dev.sparksavepoint.testing.Test;
import org.apache.spark.sql.types.StructType;

public class OperatorInferenceTest {
  private static String kind(String key, String value) {
    return OperatorInference.kindOf(key.isEmpty() ? new StructType() : StructType.fromDDL(key),
        StructType.fromDDL(value));
  }

  @Test
  public void tellsOperatorsByTheShapeOfTheirState() {
    assertEquals("dedupe", kind("event_id BIGINT", "__dummy__ VOID"));
    assertEquals("dedupeWithinWatermark", kind("event_id BIGINT", "expiresAtMicros BIGINT"));
    assertEquals("flatMapGroupsWithState",
        kind("user STRING", "groupState STRUCT<cnt: BIGINT>, timeoutTimestamp BIGINT"));
    assertEquals("stateStoreSave", kind("user STRING", "count BIGINT, sum BIGINT"));
    assertEquals("stateStoreSave",
        kind("window STRUCT<start: TIMESTAMP, end: TIMESTAMP>, user STRING", "count BIGINT"));
    assertEquals("stateStoreSave", kind("user STRING", "user STRING, max DOUBLE"), "format v1");
  }

  @Test
  public void leavesOtherShapesUnknown() {
    assertEquals("unknown", kind("user STRING", "total BIGINT"), "not a buffer name");
    assertEquals("unknown", kind("user STRING", "user STRING"), "only grouping columns");
    assertEquals("unknown", kind("", "value BIGINT"), "streaming limit: empty key");
  }
}
