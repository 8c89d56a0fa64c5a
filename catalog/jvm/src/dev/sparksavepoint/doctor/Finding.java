package dev.sparksavepoint.doctor;

/**
 * One thing the doctor found: its class, severity, what it is about (batch, operator id,
 * partition and file relative to the checkpoint; null when not about one) and the fix.
 *
 * <pre>
 * Finding[check=STATE_FILE_MISSING, severity=ERROR, batchId=4, operatorId=0, partition=1,
 *     file=state/0/1/4.delta, message=..., fix=...]
 * </pre>
 */
public record Finding(
    Check check,
    Check.Severity severity,
    Long batchId,
    Long operatorId,
    Integer partition,
    String file,
    String message,
    String fix) {

  /** A finding of {@code check} with its severity and fix. */
  public static Finding of(
      Check check, Long batchId, Long operatorId, Integer partition, String file, String message) {
    return new Finding(
        check, check.severity(), batchId, operatorId, partition, file, message, check.fix());
  }

  /** The same finding at another severity (an old log entry matters less than the last). */
  public Finding at(Check.Severity level) {
    return new Finding(check, level, batchId, operatorId, partition, file, message, fix);
  }
}
