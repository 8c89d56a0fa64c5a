package dev.sparksavepoint.store;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What a dry run found one store partition would get (see {@link StatePartition#openDryRun}):
 * entries added (a key the state does not hold), changed (another value) and removed, and up
 * to {@link #SAMPLES} of them as {@code key: before -> after} lines. Nothing was written to
 * the state; a statement of an edit transaction staged its changes in {@code stagedFile}
 * (null otherwise, or when it changes nothing).
 */
public record PlannedChanges(
    long operatorId,
    String storeName,
    int partition,
    long added,
    long changed,
    long removed,
    List<String> samples,
    String stagedFile)
    implements WriterCommitMessage {
  /** How many changed entries a dry run shows per partition (and in its report). */
  public static final int SAMPLES = 5;

  /** The sum of {@code changes}, with their samples (at most {@link #SAMPLES}). */
  public static PlannedChanges total(List<PlannedChanges> changes) {
    long added = 0;
    long changed = 0;
    long removed = 0;
    List<String> samples = new ArrayList<>();
    for (PlannedChanges c : changes) {
      added += c.added();
      changed += c.changed();
      removed += c.removed();
      for (String s : c.samples()) {
        if (samples.size() < SAMPLES) samples.add(s);
      }
    }
    return new PlannedChanges(-1, "", -1, added, changed, removed, samples, null);
  }
}
