package dev.sparksavepoint.checkpoint;

import dev.sparksavepoint.adapters.OperatorMetadataFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadata;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadataV2;
import org.apache.spark.sql.execution.streaming.state.StateStoreMetadataV2;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A moved transformWithState checkpoint. Its operator metadata v2 names the state schema files
 * by absolute path where the checkpoint was written, and Spark opens them there: after the
 * checkpoint is copied elsewhere (another machine, another folder) and the original is gone,
 * they are missing, while the copy has the same files in its own {@code state/<op>/_stateSchema/}.
 * {@link #of} finds the recorded root to read them under the copy instead; {@link
 * #missingElsewhere} tells a moved checkpoint whose files are gone from a damaged one.
 */
public final class MovedSchemaFiles {
  private static final Pattern MISSING =
      Pattern.compile("(\\S+/state/\\d+/_stateSchema/\\S+) does not exist");
  private static final Pattern RECORDED = Pattern.compile("(.*)/state/\\d+/_stateSchema/.+");

  private MovedSchemaFiles() {}

  /**
   * Where the checkpoint was written and where it is: the recorded root of the schema files that
   * operator {@code operatorId}'s metadata v2 names for {@code batchId} (a path with scheme),
   * and this checkpoint's root.
   */
  public record Relocation(Path recordedRoot, Path root) {}

  /**
   * The relocation of operator {@code operatorId}'s state schema files when they are recorded
   * outside {@code checkpoint}, are gone there and are all found under it; null otherwise (no
   * operator metadata v2, files where recorded, or missing in the copy too).
   */
  public static Relocation of(
      Configuration conf, String checkpoint, long operatorId, long batchId) {
    try {
      Path root = new Path(checkpoint);
      FileSystem fs = root.getFileSystem(conf);
      root = fs.makeQualified(root);
      Path opDir = new Path(new Path(root, "state"), Long.toString(operatorId));
      if (!fs.exists(new Path(opDir, "_metadata/v2"))) return null;
      Path recordedRoot = null;
      for (String file : recorded(opDir, batchId, conf)) {
        Matcher m = RECORDED.matcher(file);
        Path path = new Path(file);
        if (!m.matches() || path.getFileSystem(conf).exists(path)) return null;
        Path from = new Path(m.group(1));
        String relative = file.substring(m.group(1).length() + 1);
        if (sameRoot(from, root) || !fs.exists(new Path(root, relative))) return null;
        recordedRoot = from;
      }
      return recordedRoot == null ? null : new Relocation(recordedRoot, root);
    } catch (IOException | RuntimeException e) {
      return null; // the reader reports what it cannot read
    }
  }

  /** The schema files operator metadata v2 of {@code opDir} lists for {@code batchId}. */
  static List<String> recorded(Path opDir, long batchId, Configuration conf) {
    Option<OperatorStateMetadata> read = OperatorMetadataFiles.read(opDir, conf, 2, batchId);
    List<String> files = new ArrayList<>();
    if (read.isDefined() && read.get() instanceof OperatorStateMetadataV2 metadata) {
      for (StateStoreMetadataV2 store : metadata.stateStoreInfo()) {
        files.addAll(CollectionConverters.asJava(store.stateSchemaFilePaths()));
      }
    }
    return files;
  }

  private static boolean sameRoot(Path recorded, Path root) {
    return Path.getPathWithoutSchemeAndAuthority(recorded)
        .equals(Path.getPathWithoutSchemeAndAuthority(root));
  }

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
