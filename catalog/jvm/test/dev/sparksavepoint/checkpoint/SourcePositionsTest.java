package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertThrows;

import dev.sparksavepoint.checkpoint.SourcePositions.Position;
import dev.sparksavepoint.testing.Test;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

public class SourcePositionsTest {
  private static List<Position> parse(String... sources) throws IOException {
    String entry =
        "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1,\"conf\":{}}\n"
            + String.join("\n", sources);
    return SourcePositions.parse(entry.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  public void kafkaOffsetsBecomeARowPerTopicPartitionInOrder() throws IOException {
    String kafka = "{\"orders\":{\"1\":34,\"0\":12},\"clicks\":{\"0\":5}}";
    List<Position> rows = parse(kafka);
    assertEquals(3, rows.size(), "rows");
    assertEquals(new Position(0, "kafka", "clicks", 0, 5L, kafka), rows.get(0), "first");
    assertEquals(new Position(0, "kafka", "orders", 0, 12L, kafka), rows.get(1), "second");
    assertEquals(new Position(0, "kafka", "orders", 1, 34L, kafka), rows.get(2), "third");
  }

  @Test
  public void everySourceLineIsOneSourceInOrder() throws IOException {
    List<Position> rows =
        parse(
            "{\"logOffset\":3}",
            "5",
            "{\"offset\":60,\"timestamp\":6000}",
            "-",
            "{\"custom\":[1,2]}");
    assertEquals(
        List.of("file", "long", "rate-micro-batch", "none", "other"),
        rows.stream().map(Position::kind).toList(),
        "kinds");
    assertEquals(List.of(0, 1, 2, 3, 4), rows.stream().map(Position::sourceId).toList(), "ids");
    assertEquals(3L, rows.get(0).offset(), "file source log index");
    assertEquals(5L, rows.get(1).offset(), "long offset");
    assertEquals(60L, rows.get(2).offset(), "rate-micro-batch rows");
    assertEquals(null, rows.get(3).offset(), "no offset yet");
    assertEquals("{\"custom\":[1,2]}", rows.get(4).json(), "unknown kept as JSON");
  }

  @Test
  public void anEntryWithoutItsHeaderIsRefused() {
    assertThrows(
        IOException.class,
        () -> SourcePositions.parse("{\"logOffset\":3}".getBytes(StandardCharsets.UTF_8)));
  }
}
