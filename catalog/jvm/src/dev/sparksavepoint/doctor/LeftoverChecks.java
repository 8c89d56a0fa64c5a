package dev.sparksavepoint.doctor;

import dev.sparksavepoint.commit.StagingFolders;
import java.util.function.Consumer;

/**
 * What killed writers left: the staging folders of this tool's edits
 * ({@code _savepoint-tx-<id>/}, which {@code recover} completes or removes) and temporary files
 * of Spark's and this tool's log and state writers ({@code offsets/.5.<uuid>.tmp},
 * {@code state/0/1/.5.delta.<uuid>.TID7.tmp}), and a repair that did not finish.
 */
final class LeftoverChecks {
  private LeftoverChecks() {}

  /**
   * Hadoop checksum files whose file is gone (removed without them): an error where a restart
   * writes that file (Spark renames a new file and its checksum file into place, which fails on
   * an existing checksum file: measured on 4.3 for operator metadata and schema files), else a
   * warning.
   */
  private static void orphanChecksums(
      CheckpointTree tree, LogChecks.Facts facts, Consumer<Finding> found) {
    long next = facts.lastCommitted() + 1;
    for (String file : tree.files()) {
      String of = FileChecksums.hadoopSidecar(file);
      if (of == null || tree.has(of) || CheckpointTree.isBackup(file)) continue;
      String name = of.substring(of.lastIndexOf('/') + 1);
      boolean rewritten =
          REWRITTEN.matcher(of).matches()
              || (of.startsWith("state/") && StoreChain.version(name) > next)
              || (of.matches("(offsets|commits)/\\d+") && Long.parseLong(name) >= next);
      Finding finding =
          Finding.of(
              Check.ORPHAN_CHECKSUM,
              null,
              null,
              null,
              file,
              file
                  + " is the checksum file of "
                  + of
                  + ", which is gone"
                  + (rewritten ? ": the query's restart writes " + of + " and fails on it" : ""));
      found.accept(rewritten ? finding : finding.at(Check.Severity.WARNING));
    }
  }

  /** Files a restart (re)writes when they are missing: metadata, schemas, the logs' next entries. */
  private static final java.util.regex.Pattern REWRITTEN =
      java.util.regex.Pattern.compile("metadata|state/.*/_metadata/.*|state/.*/_stateSchema/.*");

  static void run(CheckpointTree tree, LogChecks.Facts facts, Consumer<Finding> found) {
    orphanChecksums(tree, facts, found);
    for (String name : tree.children("")) {
      if (name.startsWith(StagingFolders.PREFIX) && tree.isFolder(name)) {
        found.accept(
            Finding.of(
                Check.EDIT_LEFTOVER,
                null,
                null,
                null,
                name,
                name + "/ is the staging folder of an edit that did not finish"));
      }
    }
    for (String repair : tree.children(Repair.FOLDER)) {
      String folder = Repair.FOLDER + "/" + repair;
      if (tree.has(folder + "/plan.json") && !tree.has(folder + "/applied")) {
        found.accept(
            Finding.of(
                Check.REPAIR_UNFINISHED,
                null,
                null,
                null,
                folder,
                "the repair kept in " + folder + "/ did not finish"));
      }
    }
    for (String file : tree.files()) {
      String name = file.substring(file.lastIndexOf('/') + 1);
      if (name.startsWith(".")
          && name.endsWith(".tmp")
          && !file.startsWith(StagingFolders.PREFIX)
          && !CheckpointTree.isBackup(file)) {
        found.accept(
            Finding.of(
                Check.TEMPORARY_FILE,
                null,
                null,
                null,
                file,
                file + " is a temporary file of a writer that did not finish"));
      }
    }
  }
}
