package dev.sparksavepoint.commit;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An edit killed after it planned batch b = N+1 (offsets/b, a byte copy of offsets/N, and a
 * claim file for b) and before commits/b. The checkpoint is consistent (reads see batch N;
 * version N+2 files are uncommitted), and the restarted query re-runs batch b without input,
 * overwriting them. A write does the same first, when every writer that claimed b is provably
 * gone ({@link WriterProcess#isGone}): it completes b as an empty batch (every store partition's
 * version N+1 committed again as N+2, {@code write.EmptyBatch}). Otherwise the write is refused
 * with SAVEPOINT_INTERRUPTED_EDIT; {@code spark-savepoint recover --force} completes b when the
 * user knows the writer has stopped.
 */
public final class InterruptedEdit {
  private static final Logger LOG = LoggerFactory.getLogger("dev.sparksavepoint.edits");

  /** Checkpoint and batch of the interrupted edits {@link #noticeOnRead} has told of. */
  private static final Set<String> NOTICED = ConcurrentHashMap.newKeySet();

  private InterruptedEdit() {}

  /**
   * Tells once per checkpoint and batch, in one line at WARN (logger
   * {@code dev.sparksavepoint.edits}), that the last batch of {@code ckpt} was planned by an
   * edit that has not committed: which batch, which writer, what reads show and what will
   * complete it. Returns the line, or null when there is nothing to tell.
   */
  public static String noticeOnRead(Checkpoint ckpt) {
    long last = ckpt.hasCommittedBatch() ? ckpt.lastCommitted() : -1;
    long batch = CheckpointLog.nextBatch(last);
    if (last < 0 || ckpt.lastPlanned() != batch) return null;
    List<EditClaim.Claim> claims;
    try {
      claims = EditClaim.claims(ckpt.fileSystem(), ckpt.root(), batch);
    } catch (IOException e) {
      return null; // the read goes on; the next edit looks again
    }
    if (claims.isEmpty() || !NOTICED.add(ckpt.location() + "@" + batch)) return null;
    boolean gone = claims.stream().allMatch(c -> c.writer().isGone());
    String line =
        "savepoint: batch "
            + batch
            + " of '"
            + ckpt.location()
            + "' was planned by"
            + " an edit that has not committed ("
            + String.join("; ", claims.stream().map(EditClaim.Claim::describe).toList())
            + "); reads show batch "
            + last
            + ". "
            + (gone
                ? "Its writer is gone: the next edit, `spark-savepoint recover "
                    + ckpt.location()
                    + "` or the restarted query completes the batch without the edit."
                : "If its writer has stopped, `spark-savepoint recover "
                    + ckpt.location()
                    + " --force` completes the batch without the edit.");
    LOG.warn(line);
    return line;
  }

  /**
   * The interrupted edit, described ({@code "upsert into ... by pid 7 on host h, claimed ..."}),
   * when the last batch is one that may be completed now; null when the last batch is not
   * planned-but-uncommitted or was not planned by an edit (a query's batch: restart the query).
   *
   * @param force allow completing it even when a claimer is not provably gone
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CONCURRENT_WRITE when a writer on
   *     this host that claimed the batch still runs (even with force), SAVEPOINT_INTERRUPTED_EDIT
   *     when one on another host may still run
   */
  public static String completable(Checkpoint ckpt, boolean force) {
    long last = ckpt.lastCommitted();
    long batch = CheckpointLog.nextBatch(last);
    if (ckpt.lastPlanned() != batch || !plannedByEdit(ckpt, last)) return null;
    List<EditClaim.Claim> claims;
    try {
      claims = EditClaim.claims(ckpt.fileSystem(), ckpt.root(), batch);
    } catch (IOException e) {
      throw Errors.io(ckpt.location(), e);
    }
    if (claims.isEmpty()) return null; // no edit of ours planned it
    EditClaim.Claim running =
        claims.stream().filter(c -> c.writer().isRunningHere()).findFirst().orElse(null);
    if (running != null) {
      throw Errors.concurrentWrite(
          ckpt.location(), batch, "another edit is writing it (" + running.describe() + ")");
    }
    String edits = String.join("; ", claims.stream().map(EditClaim.Claim::describe).toList());
    if (!force && !claims.stream().allMatch(c -> c.writer().isGone())) {
      throw Errors.interruptedEdit(ckpt.location(), batch, edits);
    }
    return edits;
  }

  /** offsets/{last+1} is a byte copy of offsets/{last}: an edit's batch (a query's differs). */
  private static boolean plannedByEdit(Checkpoint ckpt, long last) {
    CheckpointLog offsets = ckpt.offsetLog();
    try {
      return Arrays.equals(offsets.bytes(last), offsets.bytes(CheckpointLog.nextBatch(last)));
    } catch (IOException e) {
      return false;
    }
  }
}
