package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;

import dev.sparksavepoint.testing.Test;
import java.util.HashMap;
import java.util.Map;

public class WriterVersionTest {
  private static final String S = "spark.sql.streaming.";
  private static final Map<String, String> V23 =
      Map.of(
          "spark.sql.shuffle.partitions",
          "5",
          S + "stateStore.providerClass",
          "HDFSBackedStateStoreProvider");
  private static final Map<String, String> V24 = with(V23, S + "multipleWatermarkPolicy");
  private static final Map<String, String> V30 = with(V24, S + "join.stateFormatVersion");
  private static final Map<String, String> V31 = with(V30, S + "stateStore.compression.codec");
  private static final Map<String, String> V32 = with(V31, S + "stateStore.rocksdb.formatVersion");
  private static final Map<String, String> V35 =
      with(V32, S + "statefulOperator.useStrictDistribution");
  private static final Map<String, String> V40 = with(V35, S + "stateStore.encodingFormat");
  private static final Map<String, String> V42 = with(V40, S + "stateStore.rowChecksum.enabled");
  private static final Map<String, String> V43 =
      with(V42, "spark.sql.dropDuplicates.deterministicKeyOrder.enabled");

  private static Map<String, String> with(Map<String, String> conf, String key) {
    Map<String, String> more = new HashMap<>(conf);
    more.put(key, "x");
    return more;
  }

  @Test
  public void tellsReleasesByWhatTheyLeave() {
    assertEquals("3.5 or earlier", WriterVersion.of(V35, true, false, false));
    assertEquals("4.0", WriterVersion.of(V40, true, true, false));
    assertEquals("4.0", WriterVersion.of(V35, true, true, false), "operator metadata alone");
    assertEquals("4.1", WriterVersion.of(V40, true, true, true), "state checksum files");
    assertEquals("4.2", WriterVersion.of(V42, true, true, false));
    assertEquals("4.3", WriterVersion.of(V43, true, true, false));
  }

  @Test
  public void tellsReleasesBefore35ByTheSettingsTheyBeganRecording() {
    assertEquals("2.2 or 2.3", WriterVersion.of(V23, false, false, false), "commits {}");
    assertEquals("2.4", WriterVersion.of(V24, true, false, false));
    assertEquals("2.4", WriterVersion.of(V23, true, false, false), "commit watermark alone");
    assertEquals("3.0", WriterVersion.of(V30, true, false, false));
    assertEquals("3.1", WriterVersion.of(V31, true, false, false));
    assertEquals("3.2", WriterVersion.of(V32, true, false, false));
  }
}
