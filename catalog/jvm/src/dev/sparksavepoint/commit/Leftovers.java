package dev.sparksavepoint.commit;

import dev.sparksavepoint.checkpoint.CheckpointLog;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What killed writers leave in a checkpoint's logs, removed once it is provably dead (staging
 * folders are {@link StagingFolders}' part):
 *
 * <ul>
 *   <li>claim files ({@code _savepoint/edits/<b>.<id>.json}) of writers that are provably gone
 *       ({@link WriterProcess#isGone}) and whose batch b is either not planned (killed before
 *       offsets/b) or committed without their id ({@link EditToken}: the query, or the edit that
 *       completed the batch, committed it). The claim of an edit that committed stays: it is
 *       the record of the edit. A dead claim on a planned, uncommitted batch stays too: it is
 *       what lets the next edit complete that batch ({@link InterruptedEdit});
 *   <li>temporary log entries ({@code offsets/.<b>.<uuid>.tmp}, {@code commits/...}) whose entry
 *       {@code <b>} exists: a rename onto an existing entry never succeeds, so their writer
 *       either lost a race or was killed.
 * </ul>
 */
public final class Leftovers {
  /** A temporary file of a log entry, as Spark's and this tool's log writers name them. */
  private static final Pattern TEMP = Pattern.compile("\\.(\\d+)\\.[0-9a-fA-F-]+\\.tmp");

  private Leftovers() {}

  /**
   * Removes the dead claims and temporary log entries of checkpoint {@code root}; returns what
   * it removed, one line, or null when it found nothing.
   */
  public static String remove(FileSystem fs, Path root) throws IOException {
    int claims = removeDeadClaims(fs, root);
    int temps =
        removeTemps(fs, new Path(root, CheckpointLog.OFFSETS))
            + removeTemps(fs, new Path(root, CheckpointLog.COMMITS));
    if (claims + temps == 0) return null;
    List<String> what = new ArrayList<>();
    if (claims > 0) what.add(claims + " claim file" + (claims == 1 ? "" : "s"));
    if (temps > 0) what.add(temps + " temporary log file" + (temps == 1 ? "" : "s"));
    return "removed what killed edits left: " + String.join(" and ", what);
  }

  /**
   * Removes dead claims on batches from the oldest entry still in the commit log on (older
   * ones were looked at by earlier edits; Spark keeps about 100 entries).
   */
  private static int removeDeadClaims(FileSystem fs, Path root) throws IOException {
    CheckpointLog commits = new CheckpointLog(fs, root, CheckpointLog.COMMITS);
    CheckpointLog offsets = new CheckpointLog(fs, root, CheckpointLog.OFFSETS);
    java.util.TreeMap<Long, Long> entries;
    try {
      entries = commits.entries();
    } catch (FileNotFoundException e) {
      return 0;
    }
    long oldest = entries.isEmpty() ? 0 : entries.firstKey();
    int removed = 0;
    for (EditClaim.Claim claim : EditClaim.claims(fs, root, b -> b >= oldest)) {
      if (!claim.writer().isGone()) continue;
      String committedBy = EditToken.of(fs, root, claim.batch());
      boolean dead =
          committedBy == null
              ? !fs.exists(offsets.file(claim.batch()))
              : claim.marksCommit() && !committedBy.equals(claim.id());
      if (dead && fs.delete(new Path(new Path(root, EditClaim.FOLDER), claim.file()), false)) {
        removed++;
      }
    }
    return removed;
  }

  private static int removeTemps(FileSystem fs, Path log) throws IOException {
    FileStatus[] files;
    try {
      files = fs.listStatus(log);
    } catch (FileNotFoundException e) {
      return 0;
    }
    int removed = 0;
    for (FileStatus status : files) {
      Matcher temp = TEMP.matcher(status.getPath().getName());
      if (temp.matches()
          && fs.exists(new Path(log, temp.group(1)))
          && fs.delete(status.getPath(), false)) {
        removed++;
      }
    }
    return removed;
  }
}
