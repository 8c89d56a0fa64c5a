package dev.sparksavepoint.actions;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sparksavepoint.checkpoint.SavepointManifest;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Disposes of a savepoint: removes exactly the files its manifest lists, then the manifest, then
 * the folders that became empty. Files it does not list (added by edits of a writable savepoint,
 * or by someone else) are left where they are, and reported.
 */
public final class DisposeSavepoint {
  private DisposeSavepoint() {}

  /** Disposes of the savepoint at {@code path}; one line saying what was removed and kept. */
  public static String run(String path, Configuration conf) {
    Path root = new Path(path);
    try {
      FileSystem fs = root.getFileSystem(conf);
      if (!fs.exists(root)) throw Errors.noSuchSavepointFolder(path, false);
      JsonNode manifest = SavepointManifest.read(fs, root);
      if (manifest == null) throw Errors.notASavepoint(path);
      long files = 0;
      long bytes = 0;
      for (JsonNode f : manifest.path("files")) {
        if (fs.delete(new Path(root, f.path("path").asText()), false)) {
          files++;
          bytes += f.path("bytes").asLong();
        }
      }
      fs.delete(SavepointManifest.file(root), false);
      List<String> kept = new ArrayList<>();
      removeEmpty(fs, root, kept);
      return "Disposed of savepoint '"
          + path
          + "': removed "
          + (files + 1)
          + " files ("
          + bytes
          + " bytes)"
          + (kept.isEmpty()
              ? "."
              : "; kept " + kept.size() + " files it does not list, e.g. " + kept.get(0) + ".");
    } catch (IOException e) {
      throw Errors.io(path, e);
    }
  }

  /** Removes empty folders bottom-up; collects the files that remain. */
  private static boolean removeEmpty(FileSystem fs, Path dir, List<String> kept)
      throws IOException {
    boolean empty = true;
    for (FileStatus s : fs.listStatus(dir)) {
      if (s.isDirectory()) {
        empty &= removeEmpty(fs, s.getPath(), kept);
      } else {
        kept.add(s.getPath().toString());
        empty = false;
      }
    }
    if (empty) fs.delete(dir, false);
    return empty;
  }
}
