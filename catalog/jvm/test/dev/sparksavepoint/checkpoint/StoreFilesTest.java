package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertFalse;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.Test;

public class StoreFilesTest {
  @Test
  public void readsTheVersionOfEveryStoreFileKind() {
    assertEquals(5L, StoreFiles.versionOf("5.delta"));
    assertEquals(12L, StoreFiles.versionOf("12.snapshot"));
    assertEquals(3L, StoreFiles.versionOf("3.changelog"));
    assertEquals(4L, StoreFiles.versionOf("4_0f1e2d.zip"), "checkpoint format v2 zip");
    assertEquals(5L, StoreFiles.versionOf(".5.delta.crc"), "checksum");
    assertEquals(5L, StoreFiles.versionOf(".5.delta.8c1d-4e.TID7.tmp"), "temporary file");
  }

  @Test
  public void tellsStoreDataFromMetadata() {
    assertEquals(-1L, StoreFiles.versionOf("schema"));
    assertEquals(-1L, StoreFiles.versionOf("metadata"));
    assertFalse(StoreFiles.isData("0_a38f9ca5-9ebe"), "a schema file");
    assertTrue(StoreFiles.isData("2.zip"), "a RocksDB snapshot");
    assertTrue(
        StoreFiles.isSnapshot("2_abc.zip") && StoreFiles.isSnapshot("7.snapshot"), "full copies");
    assertFalse(
        StoreFiles.isSnapshot("2.delta") || StoreFiles.isSnapshot("2.changelog"), "change files");
  }

  @Test
  public void namesADeltaFromNoStateAsTheSnapshotOfAVersion() {
    assertEquals("7.snapshot", StoreFiles.asSnapshot("1.delta", 7));
    assertEquals(".7.snapshot.crc", StoreFiles.asSnapshot(".1.delta.crc", 7), "Hadoop's checksum");
    assertEquals("7.snapshot.crc", StoreFiles.asSnapshot("1.delta.crc", 7), "Spark's checksum");
    assertTrue(
        StoreFiles.isDeltaOf("1.delta", 1) && StoreFiles.isDeltaOf(".1.delta.crc", 1),
        "a delta and its checksum");
    assertFalse(
        StoreFiles.isDeltaOf("11.delta", 1) || StoreFiles.isDeltaOf("1.snapshot", 1),
        "another version, another kind");
  }
}
