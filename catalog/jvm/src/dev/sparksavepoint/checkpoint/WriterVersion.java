package dev.sparksavepoint.checkpoint;

import java.util.List;
import java.util.Map;

/**
 * Which Spark release wrote a batch of a checkpoint, as far as its files tell. Spark records no
 * version, but releases differ in what they leave; each began recording settings in the offset
 * log (measured on Apache Spark's own golden checkpoints of 2.3.1 to 4.0.1 and on pyspark 3.5.9,
 * 4.0.5, 4.1.4, 4.2.1 and 4.3.0):
 *
 * <ul>
 *   <li>2.2 and 2.3 record only {@code shuffle.partitions} and the state store provider, and
 *       write commit entries without a watermark ({@code {}});
 *   <li>2.4 records {@code streaming.multipleWatermarkPolicy} and the aggregation and
 *       flatMapGroupsWithState state formats, and commits {@code nextBatchWatermarkMs};
 *   <li>3.0 records {@code streaming.join.stateFormatVersion};
 *   <li>3.1 records {@code stateStore.compression.codec}, and writes state schema files;
 *   <li>3.2 records {@code stateStore.rocksdb.formatVersion};
 *   <li>3.3 records {@code statefulOperator.useStrictDistribution}; 3.4 and 3.5 add nothing, so
 *       this is {@code "3.5 or earlier"};
 *   <li>4.0 began writing operator metadata and recording {@code stateStore.encodingFormat};
 *   <li>4.1 writes a checksum file next to every state file ({@code 1.delta.crc}, also with
 *       checkpoint format v1, which 4.2 and later do not; 4.0 already wrote checkpoint format
 *       v2, without them);
 *   <li>4.2 records {@code stateStore.rowChecksum.enabled} and
 *       {@code stateStore.rocksdb.mergeOperatorVersion};
 *   <li>4.3 records {@code dropDuplicates.deterministicKeyOrder.enabled} and
 *       {@code statefulOperator.alwaysNullableOutput.enabled}.
 * </ul>
 *
 * A query run by several versions shows the newest: a later release records the settings of the
 * earlier ones too.
 */
public final class WriterVersion {
  static final String OLDEST = "3.5 or earlier";

  /** A release and the offset-log settings it began recording. */
  private record Mark(String version, List<String> recordedConfs) {}

  private static final String SQL = "spark.sql.";
  private static final String STREAMING = SQL + "streaming.";

  /** The releases before 4.0, oldest first. */
  private static final List<Mark> OLD_MARKS =
      List.of(
          new Mark(
              "2.4",
              List.of(
                  STREAMING + "multipleWatermarkPolicy",
                  STREAMING + "aggregation.stateFormatVersion",
                  STREAMING + "flatMapGroupsWithState.stateFormatVersion")),
          new Mark("3.0", List.of(STREAMING + "join.stateFormatVersion")),
          new Mark("3.1", List.of(STREAMING + "stateStore.compression.codec")),
          new Mark("3.2", List.of(STREAMING + "stateStore.rocksdb.formatVersion")),
          new Mark(OLDEST, List.of(STREAMING + "statefulOperator.useStrictDistribution")));

  private static final List<Mark> MARKS =
      List.of(
          new Mark(
              "4.2",
              List.of(
                  STREAMING + "stateStore.rowChecksum.enabled",
                  STREAMING + "stateStore.rocksdb.mergeOperatorVersion")),
          new Mark(
              "4.3",
              List.of(
                  SQL + "dropDuplicates.deterministicKeyOrder.enabled",
                  STREAMING + "statefulOperator.alwaysNullableOutput.enabled")));
  private static final String V40_CONF = STREAMING + "stateStore.encodingFormat";

  private WriterVersion() {}

  /**
   * The version that wrote a batch: {@code recordedConf} is the batch's offset-log conf,
   * {@code commitWatermark} whether its commit entry records {@code nextBatchWatermarkMs},
   * {@code operatorMetadata} whether a stateful operator has operator metadata files,
   * {@code stateChecksums} whether state files have Spark's checksum files.
   *
   * <p>{@code of(Map.of("spark.sql.shuffle.partitions", "5"), false, false, false)} is
   * {@code "2.2 or 2.3"}.
   */
  public static String of(
      Map<String, String> recordedConf,
      boolean commitWatermark,
      boolean operatorMetadata,
      boolean stateChecksums) {
    String version = commitWatermark ? "2.4" : "2.2 or 2.3";
    for (Mark mark : OLD_MARKS) {
      if (mark.recordedConfs().stream().anyMatch(recordedConf::containsKey)) {
        version = mark.version();
      }
    }
    if (operatorMetadata || recordedConf.containsKey(V40_CONF)) {
      version = stateChecksums ? "4.1" : "4.0";
    }
    for (Mark mark : MARKS) {
      if (mark.recordedConfs().stream().anyMatch(recordedConf::containsKey)) {
        version = mark.version();
      }
    }
    return version;
  }
}
