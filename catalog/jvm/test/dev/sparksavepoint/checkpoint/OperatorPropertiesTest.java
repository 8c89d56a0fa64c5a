package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertFalse;
import static dev.sparksavepoint.testing.Assert.assertThrows;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.Test;
import java.io.IOException;
import java.util.List;
import java.util.Map;

public class OperatorPropertiesTest {
  /** As transformWithStateInPandasExec records it (Spark 4.3). */
  static final String TWS =
      "{\"timeMode\":\"EventTime\",\"outputMode\":\"Update\","
          + "\"stateVariables\":["
          + "{\"stateName\":\"count\",\"stateVariableType\":\"ValueState\",\"ttlEnabled\":false},"
          + "{\"stateName\":\"history\",\"stateVariableType\":\"ListState\",\"ttlEnabled\":true},"
          + "{\"stateName\":\"items\",\"stateVariableType\":\"MapState\"},"
          + "{\"stateName\":\"$eventTimers_keyToTimestamp\",\"stateVariableType\":\"TimerState\","
          + "\"ttlEnabled\":false}]}";

  @Test
  public void listsTheUsersVariablesInOrder() throws IOException {
    OperatorProperties props = OperatorProperties.parse(TWS);
    assertEquals(
        Map.of("count", "ValueState", "history", "ListState", "items", "MapState"),
        props.userVariables());
    assertEquals(
        List.of("count", "history", "items"), List.copyOf(props.userVariables().keySet()), "order");
    assertEquals(4, props.variables().size(), "with Spark's own");
    assertTrue(props.hasTimers(), "event time");
  }

  @Test
  public void saysTtlOnlyWhenRecorded() throws IOException {
    OperatorProperties props = OperatorProperties.parse(TWS);
    assertEquals(false, props.variables().get("count").ttlEnabled());
    assertEquals(true, props.variables().get("history").ttlEnabled());
    assertEquals(null, props.variables().get("items").ttlEnabled(), "missing: unknown");
    assertEquals(
        null,
        OperatorProperties.parse(TWS.replace("\"ttlEnabled\":false}", "\"ttlEnabled\":\"no\"}"))
            .variables()
            .get("count")
            .ttlEnabled(),
        "not a boolean");
  }

  @Test
  public void noTimeModeMeansNoTimers() throws IOException {
    assertFalse(OperatorProperties.parse("{\"timeMode\":\"NoTime\"}").hasTimers(), "NoTime");
    assertFalse(OperatorProperties.parse("{}").hasTimers(), "absent");
    assertFalse(OperatorProperties.NONE.hasTimers(), "metadata v1");
  }

  @Test
  public void refusesWhatItCannotParse() {
    assertThrows(IOException.class, () -> OperatorProperties.parse("{\"timeMode\":"));
    assertThrows(IOException.class, () -> OperatorProperties.parse("[]"));
    assertThrows(IOException.class, () -> OperatorProperties.parse(""));
    assertThrows(IOException.class, () -> OperatorProperties.parse("{\"stateVariables\":1}"));
    assertThrows(
        IOException.class,
        () -> OperatorProperties.parse("{\"stateVariables\":[{\"stateName\":\"count\"}]}"));
  }
}
