package dev.sparksavepoint.checkpoint;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.Path;

/**
 * Tells a moved transformWithState checkpoint from a damaged one. Its operator metadata v2 names
 * the state schema files by absolute path, and Spark opens them there: after the checkpoint is
 * copied elsewhere and the original removed, reading fails with a missing file outside the
 * checkpoint.
 */
public final class MovedSchemaFiles {
  private static final Pattern MISSING =
      Pattern.compile("(\\S+/state/\\d+/_stateSchema/\\S+) does not exist");

  private MovedSchemaFiles() {}

  /**
   * The missing schema file outside {@code checkpoint} that {@code error} (or a cause) reports,
   * or null when the error is something else.
   */
  public static String missingElsewhere(String checkpoint, Throwable error) {
    String home = Path.getPathWithoutSchemeAndAuthority(new Path(checkpoint)).toString();
    for (Throwable e = error; e != null; e = e.getCause()) {
      Matcher m = MISSING.matcher(String.valueOf(e.getMessage()));
      if (m.find()) {
        String missing = Path.getPathWithoutSchemeAndAuthority(new Path(m.group(1))).toString();
        return missing.startsWith(home + "/") ? null : m.group(1);
      }
    }
    return null;
  }
}
