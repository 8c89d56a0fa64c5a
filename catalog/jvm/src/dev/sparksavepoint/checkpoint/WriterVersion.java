package dev.sparksavepoint.checkpoint;

import java.util.List;
import java.util.Map;

/**
 * Which Spark version wrote a batch of a checkpoint, as far as its files tell. Spark records no
 * version, but releases differ in what they leave (measured on pyspark 3.5.9, 4.0.5, 4.1.4, 4.2.1
 * and 4.3.0):
 *
 * <ul>
 *   <li>4.0 began writing operator metadata and recording {@code stateStore.encodingFormat} in
 *       the offset log;
 *   <li>4.1 writes a checksum file next to every state file ({@code 1.delta.crc}, also with
 *       checkpoint format v1, which 4.2 and later do not) and brought checkpoint format v2;
 *   <li>4.2 records {@code stateStore.rowChecksum.enabled} and
 *       {@code stateStore.rocksdb.mergeOperatorVersion};
 *   <li>4.3 records {@code dropDuplicates.deterministicKeyOrder.enabled} and
 *       {@code statefulOperator.alwaysNullableOutput.enabled}.
 * </ul>
 *
 * A query run by several versions shows the newest. Without any mark the answer is
 * {@code "3.5 or earlier"}.
 */
public final class WriterVersion {
  static final String OLDEST = "3.5 or earlier";

  /** A release and the offset-log settings it began recording. */
  private record Mark(String version, List<String> recordedConfs) {}

  private static final List<Mark> MARKS = List.of(
      new Mark("4.2", List.of("spark.sql.streaming.stateStore.rowChecksum.enabled",
          "spark.sql.streaming.stateStore.rocksdb.mergeOperatorVersion")),
      new Mark("4.3", List.of("spark.sql.dropDuplicates.deterministicKeyOrder.enabled",
          "spark.sql.streaming.statefulOperator.alwaysNullableOutput.enabled")));
  private static final String V40_CONF = "spark.sql.streaming.stateStore.encodingFormat";

  private WriterVersion() {}

  /**
   * The version that wrote a batch: {@code recordedConf} is the batch's offset-log conf,
   * {@code operatorMetadata} whether a stateful operator has operator metadata files,
   * {@code stateChecksums} whether state files have Spark's checksum files, {@code formatV2}
   * whether the commit records state checkpoint ids.
   */
  public static String of(Map<String, String> recordedConf, boolean operatorMetadata,
      boolean stateChecksums, boolean formatV2) {
    String version = OLDEST;
    if (operatorMetadata || recordedConf.containsKey(V40_CONF)) {
      version = stateChecksums || formatV2 ? "4.1" : "4.0";
    }
    for (Mark mark : MARKS) {
      if (mark.recordedConfs().stream().anyMatch(recordedConf::containsKey)) {
        version = mark.version();
      }
    }
    return version;
  }
}
