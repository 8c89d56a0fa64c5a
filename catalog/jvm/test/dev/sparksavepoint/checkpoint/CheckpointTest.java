package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertContains;
import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertThrows;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.TempFolders;
import dev.sparksavepoint.testing.Test;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.AnalysisException;

/** A checkpoint folder with only its logs (no state), on the local file system. */
public class CheckpointTest {
  private static final String OFFSETS =
      "v1\n{\"batchTimestampMs\":%d,\"conf\":{"
          + "\"spark.sql.shuffle.partitions\":\"4\"}}\n{\"logOffset\":0}\n";

  private static Path checkpoint(int batches) throws IOException {
    Path root = TempFolders.create("checkpoint-test");
    Files.createDirectories(root.resolve("offsets"));
    Files.createDirectories(root.resolve("commits"));
    for (int b = 0; b < batches; b++) commit(root, b);
    return root;
  }

  private static void commit(Path root, int batch) throws IOException {
    Files.writeString(root.resolve("offsets/" + batch), String.format(OFFSETS, 1000 * batch));
    Files.writeString(root.resolve("commits/" + batch), "v1\n{\"nextBatchWatermarkMs\":0}");
  }

  private static Checkpoint open(Path root) {
    return Checkpoint.open(root.toString(), new Configuration());
  }

  @Test
  public void knowsItsBatches() throws IOException {
    Path root = checkpoint(3);
    Files.copy(root.resolve("offsets/2"), root.resolve("offsets/3"));
    Checkpoint ckpt = open(root);
    assertEquals(2L, ckpt.lastCommitted());
    assertEquals(3L, ckpt.lastPlanned(), "planned, not committed");
    assertEquals("0..2", ckpt.committedRange());
    assertEquals(2000L, ckpt.batchTimestampMs(2));
    assertEquals("4", ckpt.recordedConf(1).get("spark.sql.shuffle.partitions"));
    assertEquals(
        "SAVEPOINT_UNCOMMITTED_BATCH",
        assertThrows(AnalysisException.class, () -> ckpt.checkBatch(3)).getCondition());
    assertEquals(
        "SAVEPOINT_NO_SUCH_BATCH",
        assertThrows(AnalysisException.class, () -> ckpt.checkBatch(9)).getCondition());
    assertTrue(ckpt.operators(2).isEmpty(), "no state folder, no operator");
  }

  @Test
  public void isReusedUntilABatchIsPlannedOrCommitted() throws IOException {
    Path root = checkpoint(2);
    Checkpoint ckpt = open(root);
    assertTrue(ckpt.refreshed() == ckpt, "unchanged logs: the same checkpoint");
    commit(root, 2);
    Checkpoint next = ckpt.refreshed();
    assertTrue(next != ckpt, "a new batch: opened afresh");
    assertEquals(2L, next.lastCommitted());
    assertTrue(next.refreshed() == next, "unchanged again");
  }

  @Test
  public void damagedLogEntriesAreNamed() throws IOException {
    Path root = checkpoint(2);
    Files.writeString(root.resolve("offsets/1"), "v1\n");
    Checkpoint ckpt = open(root);
    AnalysisException e = assertThrows(AnalysisException.class, () -> ckpt.checkLogs(1));
    assertEquals("SAVEPOINT_CORRUPT_FILE", e.getCondition());
    assertContains("File offsets/1 of checkpoint", e.getMessage());
    assertContains("VERSION AS OF 0", e.getMessage());
    assertEquals(
        "SAVEPOINT_CORRUPT_FILE",
        assertThrows(AnalysisException.class, () -> ckpt.batchTimestampMs(1)).getCondition());
  }

  @Test
  public void aFolderWithoutLogsIsNotACheckpoint() throws IOException {
    Path root = TempFolders.create("not-a-checkpoint");
    Files.writeString(root.resolve("data.csv"), "a,b\n");
    AnalysisException e = assertThrows(AnalysisException.class, () -> open(root));
    assertEquals("SAVEPOINT_NOT_A_CHECKPOINT", e.getCondition());
    assertContains("data.csv", e.getMessage());
    assertEquals(
        "SAVEPOINT_NO_SUCH_CHECKPOINT",
        assertThrows(AnalysisException.class, () -> open(root.resolve("nowhere"))).getCondition());
  }
}
