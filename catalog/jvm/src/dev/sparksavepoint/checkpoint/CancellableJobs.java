package dev.sparksavepoint.checkpoint;

import org.apache.spark.SparkContext;

/**
 * The Spark jobs that write a new folder's files, cancelled cleanly: an interrupted command
 * (Ctrl-C, SIGTERM) cancels its jobs, and the writer removes what it created only once no task
 * can still write there. Spark lets a cancelled job's running tasks finish unless the job was
 * started interruptible; a task still running would write a file into a folder already removed.
 *
 * <p>Example: {@code CancellableJobs.interruptible(sc)} before the job; on failure {@code
 * CancellableJobs.awaitIdle(sc, 30_000)}, then remove the folder.
 */
public final class CancellableJobs {
  /** Spark's local property ({@code SparkContext.SPARK_JOB_INTERRUPT_ON_CANCEL}). */
  private static final String INTERRUPT_ON_CANCEL = "spark.job.interruptOnCancel";

  private CancellableJobs() {}

  /** Jobs this thread starts from now on interrupt their tasks' threads when cancelled. */
  public static void interruptible(SparkContext sc) {
    sc.setLocalProperty(INTERRUPT_ON_CANCEL, "true");
  }

  /** Waits until no job of {@code sc} runs, at most {@code timeoutMs}; whether none runs. */
  public static boolean awaitIdle(SparkContext sc, long timeoutMs) {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!sc.isStopped() && sc.statusTracker().getActiveJobIds().length > 0) {
      if (System.currentTimeMillis() > deadline) return false;
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
