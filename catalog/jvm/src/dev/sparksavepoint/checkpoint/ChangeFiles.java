package dev.sparksavepoint.checkpoint;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Whether a store's versions are all kept as change files, the files Spark's {@code
 * readChangeFeed} reads: an HDFS-backed {@code <v>.delta} or a RocksDB {@code <v>.changelog} in
 * every partition. A version kept only as a full image ({@code .snapshot}, {@code .zip}: an
 * INSERT OVERWRITE, a restore, old deltas cleaned up) or under state checkpoint ids (format v2)
 * has none.
 */
public final class ChangeFiles {
  private static final Pattern CHANGE_FILE = Pattern.compile("(\\d+)\\.(delta|changelog)");

  private ChangeFiles() {}

  /**
   * True when every partition {@code 0 .. partitions - 1} of store {@code store} of operator
   * folder {@code operator} has a change file of every version {@code first .. last}: one glob
   * over the operator's partition folders.
   */
  public static boolean cover(
      FileSystem fs, Path operator, String store, int partitions, long first, long last)
      throws IOException {
    String versions =
        LongStream.rangeClosed(first, last)
            .mapToObj(Long::toString)
            .collect(Collectors.joining(","));
    String inPartition = store.equals("default") ? "" : store + "/";
    FileStatus[] found =
        fs.globStatus(
            new Path(operator, "*/" + inPartition + "{" + versions + "}.{delta,changelog}"));
    if (found == null) return false;
    Set<String> covered = new HashSet<>();
    for (FileStatus file : found) {
      Matcher m = CHANGE_FILE.matcher(file.getPath().getName());
      Path folder = file.getPath().getParent();
      if (!store.equals("default")) folder = folder.getParent();
      if (m.matches() && folder.getName().matches("\\d+")) {
        covered.add(folder.getName() + "/" + m.group(1));
      }
    }
    for (int p = 0; p < partitions; p++) {
      for (long v = first; v <= last; v++) {
        if (!covered.contains(p + "/" + v)) return false;
      }
    }
    return true;
  }
}
