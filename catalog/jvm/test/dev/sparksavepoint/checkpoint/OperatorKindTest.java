package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertFalse;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.checkpoint.OperatorKind.Writes;
import dev.sparksavepoint.testing.Test;
import java.util.EnumSet;
import java.util.Set;

public class OperatorKindTest {
  @Test
  public void namesEveryOperatorSparkRecords() {
    assertEquals(OperatorKind.AGG, OperatorKind.of("stateStoreSave"));
    assertEquals(OperatorKind.DEDUP, OperatorKind.of("dedupe"));
    assertEquals(OperatorKind.DEDUP, OperatorKind.of("dedupeWithinWatermark"));
    assertEquals(OperatorKind.JOIN, OperatorKind.of("symmetricHashJoin"));
    assertEquals(OperatorKind.GROUPSTATE, OperatorKind.of("flatMapGroupsWithState"));
    assertEquals(OperatorKind.GROUPSTATE, OperatorKind.of("applyInPandasWithState"));
    assertEquals(OperatorKind.SESSION, OperatorKind.of("sessionWindowStateStoreSaveExec"));
    assertEquals(OperatorKind.LIMIT, OperatorKind.of("globalLimit"));
    for (String tws :
        new String[] {
          "transformWithStateExec",
          "transformWithStateInPandasExec",
          "transformWithStateInPySparkExec",
          "someFutureTransformWithStateExec"
        }) {
      assertEquals(OperatorKind.TWS, OperatorKind.of(tws), tws);
    }
    assertEquals(OperatorKind.OTHER, OperatorKind.of("somethingNew"));
    assertEquals("op", OperatorKind.OTHER.prefix());
    assertEquals("somethingNew", OperatorKind.OTHER.describe("somethingNew"));
    assertEquals("stream-stream join", OperatorKind.JOIN.describe("symmetricHashJoin"));
  }

  @Test
  public void capabilitiesAreTheToolsRules() {
    Set<OperatorKind> storeWritable = EnumSet.noneOf(OperatorKind.class);
    Set<OperatorKind> lookups = EnumSet.noneOf(OperatorKind.class);
    Set<OperatorKind> rehashable = EnumSet.noneOf(OperatorKind.class);
    Set<OperatorKind> placedByInput = EnumSet.noneOf(OperatorKind.class);
    for (OperatorKind kind : OperatorKind.values()) {
      if (kind.writes() == Writes.STORE) storeWritable.add(kind);
      if (kind.lookups()) lookups.add(kind);
      if (kind.rehashable()) rehashable.add(kind);
      if (kind.placedByInput()) placedByInput.add(kind);
    }
    assertEquals(
        EnumSet.of(OperatorKind.AGG, OperatorKind.DEDUP, OperatorKind.GROUPSTATE), storeWritable);
    assertEquals(Writes.JOIN_SIDES, OperatorKind.JOIN.writes());
    assertEquals(Writes.VARIABLES, OperatorKind.TWS.writes());
    assertEquals(storeWritable, lookups, "point lookups: one entry per key");
    assertEquals(
        EnumSet.of(
            OperatorKind.AGG,
            OperatorKind.DEDUP,
            OperatorKind.JOIN,
            OperatorKind.GROUPSTATE,
            OperatorKind.TWS),
        rehashable);
    assertEquals(
        EnumSet.of(
            OperatorKind.AGG, OperatorKind.DEDUP, OperatorKind.GROUPSTATE, OperatorKind.SESSION),
        placedByInput);
    assertTrue(OperatorKind.TWS.needsColumnFamilies(), "only RocksDB has column families");
    assertFalse(
        OperatorKind.SESSION.hasValueNames() || OperatorKind.DEDUP.hasValueNames(),
        "value names are an aggregation's");
  }
}
