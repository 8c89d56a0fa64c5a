package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertContains;
import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertThrows;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sparksavepoint.testing.TempFolders;
import dev.sparksavepoint.testing.Test;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

public class CheckpointLogTest {
  private static final String COMMIT = "v1\n{\"nextBatchWatermarkMs\":0}";
  private static final String COMMIT_V2 =
      "v1\n{\"nextBatchWatermarkMs\":0,"
          + "\"stateUniqueIds\":{\"0\":[[\"a0\",\"b0\"],[\"a1\",\"b1\"]],\"2\":[[\"c0\"]]}}";

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  public void anEditCommitsTheNextBatchAsTheVersionAfterIt() {
    assertEquals(6L, CheckpointLog.nextBatch(5), "batch after 5");
    assertEquals(6L, CheckpointLog.stateVersion(5), "state after batch 5");
    assertEquals(7L, CheckpointLog.stateVersion(CheckpointLog.nextBatch(5)), "edit's version");
  }

  @Test
  public void parsesTheJsonLineAfterTheVersionLine() throws IOException {
    assertEquals(0, CheckpointLog.parseEntry(bytes(COMMIT)).path("nextBatchWatermarkMs").asInt());
    String offsets = "v1\n{\"batchTimestampMs\":42,\"conf\":{}}\n{\"source\":1}\n";
    assertEquals(42L, CheckpointLog.parseEntry(bytes(offsets)).path("batchTimestampMs").asLong());
  }

  @Test
  public void refusesDamagedEntriesWithTheReason() {
    assertContains(
        "empty",
        assertThrows(IOException.class, () -> CheckpointLog.parseEntry(bytes(""))).getMessage());
    assertContains(
        "version line",
        assertThrows(IOException.class, () -> CheckpointLog.parseEntry(bytes("{\"a\":1}\n{}")))
            .getMessage());
    assertContains(
        "version line",
        assertThrows(IOException.class, () -> CheckpointLog.parseEntry(bytes("v1\n")))
            .getMessage());
    assertThrows(IOException.class, () -> CheckpointLog.parseEntry(bytes("v1\n{garbage")));
  }

  @Test
  public void readsStateUniqueIdsByOperatorPartitionAndStore() throws IOException {
    assertEquals(
        null, CheckpointLog.stateUniqueIds(CheckpointLog.parseEntry(bytes(COMMIT))), "format v1");
    assertEquals(
        null,
        CheckpointLog.stateUniqueIds(
            CheckpointLog.parseEntry(
                bytes("v1\n{\"nextBatchWatermarkMs\":0,\"stateUniqueIds\":{}}"))),
        "Spark 4.0.0, v1");
    Map<Long, String[][]> ids =
        CheckpointLog.stateUniqueIds(CheckpointLog.parseEntry(bytes(COMMIT_V2)));
    assertEquals(2, ids.size(), "operators");
    assertEquals("b1", ids.get(0L)[1][1], "operator 0 partition 1 store 1");
    assertEquals("c0", ids.get(2L)[0][0], "operator 2 partition 0 store 0");
  }

  @Test
  public void refusesMalformedStateUniqueIds() {
    for (String ids : List.of("[]", "{\"x\":[]}", "{\"0\":{}}", "{\"0\":[1]}", "{\"0\":[[1]]}")) {
      assertThrows(
          IOException.class,
          () ->
              CheckpointLog.stateUniqueIds(
                  CheckpointLog.parseEntry(bytes("v1\n{\"stateUniqueIds\":" + ids + "}"))));
    }
  }

  @Test
  public void replacesStateUniqueIdsKeepingTheRest() throws IOException {
    var ids = new ObjectMapper().readTree("{\"0\":[[\"new\"]]}");
    String out =
        new String(CheckpointLog.withStateUniqueIds(bytes(COMMIT_V2), ids), StandardCharsets.UTF_8);
    assertTrue(out.startsWith("v1\n"), "version line kept: " + out);
    var json = CheckpointLog.parseEntry(bytes(out));
    assertEquals("new", json.path("stateUniqueIds").path("0").path(0).path(0).asText());
    assertEquals(1, json.path("stateUniqueIds").size(), "old ids replaced");
    assertEquals(0, json.path("nextBatchWatermarkMs").asInt(), "other fields kept");
  }

  @Test
  public void readsAnEntryChangedAfterItsChecksumAsSparkDoesAndSaysSo() throws IOException {
    java.nio.file.Path root = TempFolders.create("checkpoint-log-crc-test");
    FileSystem fs = FileSystem.getLocal(new Configuration());
    CheckpointLog log = new CheckpointLog(fs, new Path(root.toUri()), CheckpointLog.OFFSETS);
    log.create(0, bytes(COMMIT), new Configuration());
    java.nio.file.Path entry = root.resolve("offsets").resolve("0");
    assertTrue(Files.exists(root.resolve("offsets").resolve(".0.crc")), "written with a .crc");
    assertTrue(!log.hasStaleChecksum(0), "a checksum that matches");
    Files.writeString(entry, COMMIT.replace("0}", "7}")); // by hand: the .crc stays
    assertThrows(
        org.apache.hadoop.fs.ChecksumException.class,
        () -> CheckpointFiles.readAll(fs, new Path(entry.toUri())));
    CheckpointLog fresh = new CheckpointLog(fs, new Path(root.toUri()), CheckpointLog.OFFSETS);
    assertEquals(7, fresh.metadata(0).path("nextBatchWatermarkMs").asInt(), "read as Spark");
    assertTrue(fresh.hasStaleChecksum(0), "the stale checksum is remembered");
    assertContains(
        "offsets/0 does not match its Hadoop checksum file offsets/.0.crc",
        CheckpointLog.staleChecksumLine(fresh.entryName(0)));
    Files.writeString(entry, "v1\n{garbage"); // damaged, not only edited: still refused
    assertThrows(IOException.class, () -> fresh.metadata(0));
  }

  @Test
  public void listsEntriesByBatchIdOnly() throws IOException {
    java.nio.file.Path root = TempFolders.create("checkpoint-log-test");
    java.nio.file.Path commits = Files.createDirectories(root.resolve("commits"));
    Files.writeString(commits.resolve("0"), COMMIT);
    Files.writeString(commits.resolve("10"), COMMIT);
    Files.writeString(commits.resolve(".9.crc"), "x");
    Files.writeString(commits.resolve("3.tmp"), "x");
    Files.createDirectories(commits.resolve("7"));
    FileSystem fs = FileSystem.getLocal(new Configuration());
    CheckpointLog log = new CheckpointLog(fs, new Path(root.toUri()), CheckpointLog.COMMITS);
    assertEquals(List.of(0L, 10L), List.copyOf(log.entries().keySet()), "entries");
    assertEquals(COMMIT, new String(log.bytes(10), StandardCharsets.UTF_8), "bytes");
    log.create(11, bytes(COMMIT_V2), new Configuration());
    assertEquals(List.of(0L, 10L, 11L), List.copyOf(log.entries().keySet()), "after create");
    assertThrows(
        org.apache.hadoop.fs.FileAlreadyExistsException.class,
        () -> log.create(11, bytes(COMMIT), new Configuration()));
  }
}
