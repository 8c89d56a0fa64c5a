package dev.sparksavepoint.doctor;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.commit.QueryActivity;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Verifies a checkpoint offline: its logs ({@link LogChecks}), the checksums of its files
 * ({@link FileChecksums}), its state ({@link StateChecks}), what killed writers left
 * ({@link LeftoverChecks}) and whether a query writes to it now. Changes no file.
 *
 * <pre>
 *   List&lt;Finding&gt; findings = Doctor.verify(spark, "/ckpt");  // [] when healthy
 * </pre>
 */
public final class Doctor {
  private Doctor() {}

  /**
   * The findings about the checkpoint at {@code location}, most severe first, then by file.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_NO_SUCH_FOLDER or
   *     SAVEPOINT_NOT_A_CHECKPOINT when it is not a checkpoint at all
   */
  public static List<Finding> verify(SparkSession spark, String location) {
    return examine(spark, location).findings();
  }

  /**
   * What the checks read and found: the listing, what the logs say, the files that do not match
   * their checksums, and the findings (ordered as {@link #verify} returns them).
   */
  record Examination(
      FileSystem fs,
      Path root,
      CheckpointTree tree,
      LogChecks.Facts facts,
      List<FileChecksums.Mismatch> mismatches,
      List<Finding> findings) {}

  static Examination examine(SparkSession spark, String location) {
    Path root = new Path(location);
    List<Finding> findings = new ArrayList<>();
    try {
      FileSystem fs = root.getFileSystem(spark.sessionState().newHadoopConf());
      if (!fs.exists(root)) throw Errors.noSuchFolder(location);
      CheckpointTree tree = CheckpointTree.list(fs, root);
      if (!tree.isFolder("offsets") && !tree.isFolder("commits") && !tree.isFolder("state")) {
        List<String> found = tree.children("");
        throw Errors.notACheckpoint(
            location,
            found.isEmpty()
                ? "nothing"
                : String.join(", ", found.subList(0, Math.min(10, found.size()))));
      }
      LogChecks.Facts facts = new LogChecks(fs, root, tree, findings::add).run();
      List<FileChecksums.Mismatch> mismatches =
          FileChecksums.mismatches(spark, root, FileChecksums.checked(tree), tree);
      for (FileChecksums.Mismatch m : mismatches) findings.add(checksumFinding(m));
      new StateChecks(fs, root, tree, facts, findings::add).run();
      LeftoverChecks.run(tree, facts, findings::add);
      eviction(spark, location, facts, findings);
      activity(spark, location, findings);
      return new Examination(fs, root, tree, facts, mismatches, ordered(findings));
    } catch (IOException e) {
      throw Errors.io(location, e);
    }
  }

  private static Finding checksumFinding(FileChecksums.Mismatch m) {
    boolean state = m.path().startsWith("state/");
    Check check = state ? Check.STATE_FILE_CORRUPT : Check.STALE_CHECKSUM;
    Long op = null;
    Integer partition = null;
    String[] parts = m.path().split("/");
    if (state && parts.length > 1 && parts[1].matches("\\d+")) op = Long.parseLong(parts[1]);
    if (state && parts.length > 2 && parts[2].matches("\\d+"))
      partition = Integer.valueOf(parts[2]);
    return Finding.of(
        check,
        null,
        op,
        partition,
        m.path(),
        m.path() + " " + m.detail() + " (" + m.checksumFile() + ")");
  }

  /** {@link EvictionChecks}, where the state's schemas read (else other findings say why). */
  private static void eviction(
      SparkSession spark, String location, LogChecks.Facts facts, List<Finding> findings) {
    if (facts.lastCommitted() < 0
        || findings.stream().anyMatch(f -> f.severity() == Check.Severity.ERROR)) return;
    try {
      Checkpoint checkpoint = Checkpoint.open(location, spark.sessionState().newHadoopConf());
      EvictionChecks.run(checkpoint, facts.lastCommitted(), findings::add);
    } catch (Exception e) { // AnalysisException too: Errors throws it unchecked
      // schemas that do not read: the state checks and a deep verification say why
    }
  }

  private static void activity(SparkSession spark, String location, List<Finding> findings) {
    String why;
    try {
      why =
          QueryActivity.activity(
              spark, Checkpoint.open(location, spark.sessionState().newHadoopConf()));
    } catch (Exception e) { // AnalysisException too: Errors throws it unchecked
      return; // a checkpoint this damaged has findings enough
    }
    if (why != null) {
      findings.add(
          Finding.of(
              Check.QUERY_ACTIVE, null, null, null, null, "a query may be writing to it: " + why));
    }
  }

  /**
   * One finding per file, the most severe (a hand-edited log entry that no longer parses is
   * unreadable, not also of a stale checksum), most severe first, then by file and class.
   */
  private static List<Finding> ordered(List<Finding> findings) {
    Map<String, Finding> byFile = new LinkedHashMap<>();
    List<Finding> kept = new ArrayList<>();
    for (Finding f : findings) {
      if (f.file() == null) {
        kept.add(f);
        continue;
      }
      byFile.merge(f.file(), f, (a, b) -> b.severity().compareTo(a.severity()) < 0 ? b : a);
    }
    List<Finding> sorted = new ArrayList<>(kept);
    sorted.addAll(byFile.values());
    sorted.sort(
        Comparator.comparing(Finding::severity)
            .thenComparing(f -> f.file() == null ? "" : f.file())
            .thenComparing(Finding::check));
    return sorted;
  }
}
