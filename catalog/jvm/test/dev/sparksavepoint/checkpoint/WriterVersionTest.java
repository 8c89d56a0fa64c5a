package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;

import dev.sparksavepoint.testing.Test;
import java.util.Map;

public class WriterVersionTest {
  private static final Map<String, String> V35 = Map.of("spark.sql.shuffle.partitions", "4");
  private static final Map<String, String> V40 =
      Map.of("spark.sql.streaming.stateStore.encodingFormat", "unsaferow");
  private static final Map<String, String> V42 = Map.of(
      "spark.sql.streaming.stateStore.encodingFormat", "unsaferow",
      "spark.sql.streaming.stateStore.rowChecksum.enabled", "false");
  private static final Map<String, String> V43 = Map.of(
      "spark.sql.streaming.stateStore.rowChecksum.enabled", "false",
      "spark.sql.dropDuplicates.deterministicKeyOrder.enabled", "true");

  @Test
  public void tellsReleasesByWhatTheyLeave() {
    assertEquals("3.5 or earlier", WriterVersion.of(V35, false, false, false));
    assertEquals("4.0", WriterVersion.of(V40, true, false, false));
    assertEquals("4.0", WriterVersion.of(V35, true, false, false), "operator metadata alone");
    assertEquals("4.1", WriterVersion.of(V40, true, true, false), "state checksum files");
    assertEquals("4.1", WriterVersion.of(V40, true, false, true), "checkpoint format v2");
    assertEquals("4.2", WriterVersion.of(V42, true, false, true));
    assertEquals("4.3", WriterVersion.of(V43, true, false, false));
  }
}
