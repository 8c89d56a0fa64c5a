package dev.sparksavepoint.checkpoint;

import java.util.List;
import java.util.Map;

/**
 * Which Spark version wrote a checkpoint, as far as its files tell. Spark records no version in a
 * checkpoint, but each release records more settings in the offset log and 4.0 began writing
 * operator metadata; the newest release whose marks are all present is the answer ("3.5", "4.0",
 * ..., or "4.2 or later" when the newest marks are shared).
 */
public final class WriterVersion {
  /** A release and a setting its offset log records that earlier releases did not. */
  private record Mark(String version, String recordedConf) {}

  private static final List<Mark> MARKS = List.of();

  private WriterVersion() {}

  /**
   * The version that wrote a batch: {@code recordedConf} is the batch's offset-log conf,
   * {@code hasOperatorMetadata} whether any stateful operator has operator metadata files.
   */
  public static String of(Map<String, String> recordedConf, boolean hasOperatorMetadata) {
    String version = hasOperatorMetadata ? "4.0" : "3.5";
    for (Mark mark : MARKS) {
      if (recordedConf.containsKey(mark.recordedConf())) version = mark.version();
    }
    return version;
  }
}
