package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertFalse;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.Test;
import java.io.IOException;
import java.util.List;
import java.util.Map;

public class OperatorTest {
  private static Operator op(long id, String name, String... stores) {
    return new Operator(id, name, 1, 4, List.of(stores), OperatorProperties.NONE);
  }

  @Test
  public void namesOperatorsByKindAndId() {
    assertEquals("agg_0", op(0, "stateStoreSave", "default").uid());
    assertEquals("dedup_1", op(1, "dedupeWithinWatermark", "default").uid());
    assertEquals("join_2", op(2, "symmetricHashJoin").uid());
    assertEquals("groupstate_3", op(3, "applyInPandasWithState", "default").uid());
    assertEquals("session_4", op(4, "sessionWindowStateStoreSaveExec", "default").uid());
    assertEquals("tws_5", op(5, "transformWithStateInPySparkExec", "default").uid());
    assertEquals("tws_6", op(6, "someFutureTransformWithStateExec", "default").uid(), "guess");
    assertEquals("op_7", op(7, "unknown", "default").uid());
  }

  @Test
  public void answersToItsUidOrItsOperatorId() {
    Operator agg = op(0, "stateStoreSave", "default");
    assertTrue(agg.answersTo("agg_0") && agg.answersTo("AGG_0") && agg.answersTo("0"), "names");
    assertFalse(
        agg.answersTo("agg_1") || agg.answersTo("dedup_0") || agg.answersTo("00"), "other names");
  }

  @Test
  public void joinsListSidesThenRawStores() {
    Operator join = op(2, "symmetricHashJoin", "left-keyToNumValues", "left-keyWithIndexToValue");
    assertEquals(
        List.of("left", "right", "left_keyToNumValues", "left_keyWithIndexToValue"),
        join.tableNames());
    assertEquals(StateRef.joinSide(2, "right"), join.tables().get("right"));
    assertEquals("join_side", join.stateKind("left", join.tables().get("left")));
    assertEquals(
        "join_store",
        join.stateKind("left_keyToNumValues", join.tables().get("left_keyToNumValues")));
  }

  @Test
  public void transformWithStateListsVariablesAndTimers() throws IOException {
    Operator tws =
        new Operator(
            0,
            "transformWithStateInPandasExec",
            2,
            4,
            List.of("default"),
            OperatorProperties.parse(OperatorPropertiesTest.TWS));
    assertEquals(List.of("count", "history", "items", "timers"), tws.tableNames());
    assertEquals(StateRef.stateVar(0, "items"), tws.tables().get("items"));
    assertEquals(StateRef.timers(0), tws.tables().get("timers"));
    assertEquals("list", tws.stateKind("history", tws.tables().get("history")));
    assertEquals("map", tws.stateKind("items", tws.tables().get("items")));
    assertEquals("value", tws.stateKind("count", tws.tables().get("count")));
    assertEquals("timers", tws.stateKind("timers", tws.tables().get("timers")));
  }

  @Test
  public void stateRefsAreStateSourceOptions() {
    assertEquals(
        Map.of("path", "/c", "batchId", "3", "operatorId", "1", "storeName", "default"),
        StateRef.store(1, "default").options("/c", 3));
    assertEquals("true", StateRef.timers(0).options("/c", 0).get("readRegisteredTimers"));
    assertEquals(
        "aggregation",
        op(0, "stateStoreSave", "default").stateKind("default", StateRef.store(0, "default")));
  }
}
