package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The uids users give operators ({@code --uid 0=orders_by_user}), kept in
 * {@code _savepoint/uids.json} of a checkpoint or savepoint as operator id to uid. Spark never
 * reads {@code _savepoint/}. A user uid names the operator in the catalog alongside the generated
 * {@code <kind>_<id>} uid.
 */
public final class OperatorUids {
  /** The file, relative to the checkpoint root. */
  public static final String FILE = "_savepoint/uids.json";

  /** What a user uid looks like: a SQL identifier that no generated uid or id can equal. */
  private static final Pattern USER_UID = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");

  private static final Pattern GENERATED = Pattern.compile("[a-z]+_\\d+|\\d+");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Names the catalog uses itself: its metadata table, procedures and query-log namespaces. */
  private static final java.util.Set<String> RESERVED =
      java.util.Set.of("metadata", "system", "sources", "query", "sink");

  private OperatorUids() {}

  /** True for a name that can be a user uid (and so is not an operator id or generated uid). */
  public static boolean isUserUid(String name) {
    return USER_UID.matcher(name).matches()
        && !GENERATED.matcher(name).matches()
        && !RESERVED.contains(name.toLowerCase(java.util.Locale.ROOT));
  }

  /**
   * Why {@code name} cannot be a user uid, as the end of a sentence ("... is no operator id nor
   * a name: <why>"), for one that is not one.
   */
  public static String whyNotUserUid(String name) {
    if (RESERVED.contains(name.toLowerCase(java.util.Locale.ROOT))) {
      return "'"
          + name
          + "' is a name the catalog uses itself ("
          + String.join(", ", new java.util.TreeSet<>(RESERVED))
          + "); choose another";
    }
    String other =
        name.codePoints()
            .filter(c -> c > 127)
            .limit(1)
            .mapToObj(Character::toString)
            .findFirst()
            .orElse(null);
    if (other != null) {
      return "a name is ASCII letters, digits and _ ('" + other + "' is not ASCII)";
    }
    return "a name is an ASCII letter, then letters, digits or _; an operator id is a number or"
        + " a generated uid (1, agg_1)";
  }

  /** True for a name shaped like a generated uid ({@code agg_3}) or a plain operator id. */
  public static boolean isGenerated(String name) {
    return GENERATED.matcher(name).matches();
  }

  /** Operator id to user uid, read from {@code root}; empty when there is no file. */
  public static Map<Long, String> read(FileSystem fs, Path root) throws IOException {
    Map<Long, String> uids = new TreeMap<>();
    CheckpointFiles.jsonFields(fs, new Path(root, FILE))
        .forEach((id, uid) -> uids.put(Long.parseLong(id), uid.asText()));
    return uids;
  }

  /** Writes {@code uids} as a new file under {@code root} (nothing when empty). */
  public static void write(Path root, Map<Long, String> uids, Configuration conf)
      throws IOException {
    if (uids.isEmpty()) return;
    ObjectNode node = JSON.createObjectNode();
    new TreeMap<>(uids).forEach((id, uid) -> node.put(Long.toString(id), uid));
    CheckpointFiles.writeNew(new Path(root, FILE), CheckpointFiles.prettyJson(node), conf);
  }
}
