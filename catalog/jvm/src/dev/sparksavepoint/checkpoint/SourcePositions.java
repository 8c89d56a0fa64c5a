package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The source positions an offsets entry records: after the version line and the batch metadata,
 * one line per source of the query, in the order of its sources, each the source's offset as its
 * own JSON ({@code -} for a source with no offset yet). The line of batch N is where batch N
 * ended and batch N+1 starts. Known shapes are parsed into rows; any other is kept as its JSON.
 * <ul>
 *   <li>Kafka: {@code {"topic":{"0":12,"1":34}}}, a row per topic partition;
 *   <li>file source: {@code {"logOffset":3}}, the index of its last entry in {@code sources/<i>/};
 *   <li>rate-micro-batch: {@code {"offset":60,"timestamp":6000}};
 *   <li>a bare number (LongOffset): the rate source (seconds since its start, which it keeps in
 *       {@code sources/<i>/0}), and the socket and memory sources.
 * </ul>
 *
 * <p>Example: {@code SourcePositions.parse(offsetLog.bytes(7))} for the positions of batch 7.
 */
public final class SourcePositions {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The kinds of source told apart by their offset's shape. */
  public static final String KAFKA = "kafka";

  public static final String FILE = "file";
  public static final String RATE_MICRO_BATCH = "rate-micro-batch";
  public static final String LONG = "long";
  public static final String NONE = "none";
  public static final String OTHER = "other";

  /**
   * One row: source {@code sourceId} (its line), its kind, and for Kafka a topic partition;
   * {@code offset} where the shape has one number per row (else null), {@code json} the
   * source's whole offset line.
   */
  public record Position(
      int sourceId, String kind, String topic, Integer partition, Long offset, String json) {}

  /** One row's place: a source, and for Kafka its topic partition (else null, null). */
  public record Key(int sourceId, String topic, Integer partition) {}

  private SourcePositions() {}

  /**
   * The entry with the offsets of {@code changed} rows replaced, every other byte as it was:
   * a changed source's line is its own JSON with the numbers set in place (Jackson keeps the
   * order of its fields, so a Kafka line keeps Spark's order of topics and partitions) and
   * written back compact, as Spark writes it. Only shapes with one number per row change:
   * Kafka, file source, bare numbers.
   *
   * @throws IllegalArgumentException when a key names no row of a changeable shape
   */
  public static byte[] withOffsets(byte[] entry, Map<Key, Long> changed) throws IOException {
    String text = new String(entry, StandardCharsets.UTF_8);
    String[] lines = text.split("\n", -1);
    for (Map.Entry<Key, Long> change : changed.entrySet()) {
      Key key = change.getKey();
      int line = 2 + key.sourceId();
      if (key.sourceId() < 0 || line >= lines.length) {
        throw new IllegalArgumentException("no source " + key.sourceId());
      }
      lines[line] = withOffset(key, lines[line], change.getValue());
    }
    return String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
  }

  private static String withOffset(Key key, String line, long offset) throws IOException {
    Position position = parseLine(key.sourceId(), line).get(0);
    switch (position.kind()) {
      case LONG:
        return Long.toString(offset);
      case FILE:
        {
          com.fasterxml.jackson.databind.node.ObjectNode json =
              (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(line);
          json.put("logOffset", offset);
          return JSON.writeValueAsString(json);
        }
      case KAFKA:
        {
          JsonNode json = JSON.readTree(line);
          JsonNode partitions = json.get(key.topic());
          String p = String.valueOf(key.partition());
          if (partitions == null || !partitions.has(p)) {
            throw new IllegalArgumentException("no topic partition " + key.topic() + "/" + p);
          }
          ((com.fasterxml.jackson.databind.node.ObjectNode) partitions).put(p, offset);
          return JSON.writeValueAsString(json);
        }
      default:
        throw new IllegalArgumentException("a " + position.kind() + " offset cannot be set");
    }
  }

  /**
   * The positions of every source in an offsets entry.
   *
   * @throws IOException when the entry has no version and metadata lines
   */
  public static List<Position> parse(byte[] entry) throws IOException {
    List<String> lines = new String(entry, StandardCharsets.UTF_8).lines().toList();
    if (lines.size() < 2 || !lines.get(0).matches("v\\d+")) {
      throw new IOException("expected a version line such as v1 and a metadata line");
    }
    List<Position> positions = new ArrayList<>();
    for (int i = 2; i < lines.size(); i++) positions.addAll(parseLine(i - 2, lines.get(i)));
    return positions;
  }

  /** The rows of one source's offset line. */
  static List<Position> parseLine(int sourceId, String line) {
    String text = line.trim();
    if (text.equals("-") || text.isEmpty() || text.equals("null")) {
      return List.of(new Position(sourceId, NONE, null, null, null, null));
    }
    JsonNode json;
    try {
      json = JSON.readTree(text);
    } catch (IOException e) {
      return List.of(new Position(sourceId, OTHER, null, null, null, text));
    }
    if (json.isIntegralNumber()) {
      return List.of(new Position(sourceId, LONG, null, null, json.asLong(), text));
    }
    if (isKafka(json)) return kafka(sourceId, json, text);
    if (json.isObject() && json.size() == 1 && json.path("logOffset").isIntegralNumber()) {
      return List.of(
          new Position(sourceId, FILE, null, null, json.get("logOffset").asLong(), text));
    }
    if (json.isObject()
        && json.size() == 2
        && json.path("offset").isIntegralNumber()
        && json.path("timestamp").isIntegralNumber()) {
      return List.of(
          new Position(sourceId, RATE_MICRO_BATCH, null, null, json.get("offset").asLong(), text));
    }
    return List.of(new Position(sourceId, OTHER, null, null, null, text));
  }

  /** An object of topics, each an object of partition numbers to whole-number offsets. */
  private static boolean isKafka(JsonNode json) {
    if (!json.isObject() || json.isEmpty()) return false;
    for (JsonNode partitions : json) {
      if (!partitions.isObject() || partitions.isEmpty()) return false;
      Iterator<Map.Entry<String, JsonNode>> fields = partitions.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> p = fields.next();
        if (!p.getKey().matches("\\d+") || !p.getValue().isIntegralNumber()) return false;
      }
    }
    return true;
  }

  private static List<Position> kafka(int sourceId, JsonNode json, String text) {
    List<Position> rows = new ArrayList<>();
    Iterator<Map.Entry<String, JsonNode>> topics = json.fields();
    while (topics.hasNext()) {
      Map.Entry<String, JsonNode> topic = topics.next();
      Iterator<Map.Entry<String, JsonNode>> partitions = topic.getValue().fields();
      while (partitions.hasNext()) {
        Map.Entry<String, JsonNode> p = partitions.next();
        rows.add(
            new Position(
                sourceId,
                KAFKA,
                topic.getKey(),
                Integer.parseInt(p.getKey()),
                p.getValue().asLong(),
                text));
      }
    }
    rows.sort(
        (a, b) ->
            a.topic().equals(b.topic())
                ? Integer.compare(a.partition(), b.partition())
                : a.topic().compareTo(b.topic()));
    return rows;
  }
}
