package dev.sparksavepoint.actions;

import static dev.sparksavepoint.testing.Assert.assertContains;
import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertThrows;

import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.OperatorProperties;
import dev.sparksavepoint.testing.Test;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.AnalysisException;

public class CopyChangesTest {
  private static final List<Operator> OPS =
      List.of(
          new Operator(0, "stateStoreSave", 1, 4, List.of("default"), OperatorProperties.NONE),
          new Operator(1, "dedupe", 1, 4, List.of("default"), OperatorProperties.NONE));

  private static CopyChanges.Resolved resolve(List<String> uids, List<String> drops) {
    return CopyChanges.of(0, null, uids, drops).resolve("/ckpt", OPS, Map.of(1L, "seen"));
  }

  @Test
  public void movesNamesAndDropsOperators() {
    CopyChanges.Resolved r = resolve(List.of("agg_0=2", "0=orders", "seen=events"), List.of());
    assertEquals(Map.of(0L, 2L, 1L, 1L), r.ids());
    assertEquals(Map.of(2L, "orders", 1L, "events"), r.userUids());
    CopyChanges.Resolved dropped = resolve(List.of(), List.of("dedup_1"));
    assertEquals(Map.of(0L, 0L), dropped.ids());
    assertEquals(Map.of(), dropped.userUids(), "a dropped operator's user uid goes too");
  }

  @Test
  public void refusesCollisionsAndUnknownNames() {
    assertContains(
        "would both become operator 1",
        assertThrows(AnalysisException.class, () -> resolve(List.of("0=1"), List.of()))
            .getMessage());
    assertContains(
        "is given to two operators",
        assertThrows(AnalysisException.class, () -> resolve(List.of("0=x", "1=X"), List.of()))
            .getMessage());
    assertContains(
        "No operator 'join_3'; the operators are agg_0, dedup_1 (seen)",
        assertThrows(AnalysisException.class, () -> resolve(List.of("join_3=1"), List.of()))
            .getMessage());
    assertContains(
        "which is dropped",
        assertThrows(AnalysisException.class, () -> resolve(List.of("agg_0=x"), List.of("0")))
            .getMessage());
  }

  @Test
  public void recordsPartitionsAndProviderInOffsetEntries() throws Exception {
    String entry =
        "v1\n{\"batchWatermarkMs\":0,\"conf\":{\"spark.sql.shuffle.partitions\":\"4\"}}"
            + "\n{\"logOffset\":1}";
    String out =
        new String(
            CheckpointCopy.offsetEntry(
                entry.getBytes(StandardCharsets.UTF_8), 8, CopyChanges.ROCKSDB),
            StandardCharsets.UTF_8);
    assertContains("\"spark.sql.shuffle.partitions\":\"8\"", out);
    assertContains(
        "\"spark.sql.streaming.stateStore.providerClass\":\"" + CopyChanges.ROCKSDB, out);
    assertEquals("{\"logOffset\":1}", out.split("\n")[2], "source offsets unchanged");
  }

  @Test
  public void rewritesOperatorMetadataForTheTarget() throws Exception {
    String v2 =
        "v2\n{\"operatorInfo\":{\"operatorId\":0,\"operatorName\":\"tws\"},"
            + "\"stateStoreInfo\":[{\"storeName\":\"default\",\"numColsPrefixKey\":0,"
            + "\"numPartitions\":4,\"stateSchemaFilePaths\":"
            + "[\"file:/old/ckpt/state/0/_stateSchema/default/0_abc\"]}]}";
    String out =
        new String(
            CheckpointCopy.operatorMetadata(
                v2.getBytes(StandardCharsets.UTF_8), 3, 8, "file:/new/state/3/_stateSchema/"),
            StandardCharsets.UTF_8);
    assertContains("\"operatorId\":3", out);
    assertContains("\"numPartitions\":8", out);
    assertContains("[\"file:/new/state/3/_stateSchema/default/0_abc\"]", out);
  }
}
