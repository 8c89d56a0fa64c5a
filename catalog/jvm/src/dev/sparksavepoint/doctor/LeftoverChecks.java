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

  static void run(CheckpointTree tree, Consumer<Finding> found) {
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
          && !file.startsWith(StagingFolders.PREFIX)) {
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
