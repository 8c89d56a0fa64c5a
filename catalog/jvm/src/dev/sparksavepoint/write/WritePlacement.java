package dev.sparksavepoint.write;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.KeyPlacement;
import dev.sparksavepoint.checkpoint.RecordedPartitioning;
import dev.sparksavepoint.checkpoint.TableOrigin;
import dev.sparksavepoint.conf.Settings;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.read.PlacementCheck;
import dev.sparksavepoint.read.StateSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Where a write puts keys ({@link KeyPlacement}): by all key columns on a strict checkpoint; on a
 * non-strict one by the columns the user names (write option {@value #OPTION}, or the SQL conf
 * {@code spark.savepoint.write.partitionedBy}), those of the query given to the catalog
 * ({@code --query}, {@code attach(query=)}), or those the query recorded when it ran
 * ({@link RecordedPartitioning}), after checking that they place every stored key where it lives. A
 * write that knows none there is refused, with the column sets the stored keys fit.
 */
final class WritePlacement {
  /** The write option that names the columns the query partitioned its input by. */
  static final String OPTION = "partitioned_by";

  /**
   * Placements already checked against every stored key of a batch (checkpoint, batch and its
   * commit time, state, columns): the statements of one transaction or script check once.
   */
  private static final java.util.Set<String> VERIFIED =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private WritePlacement() {}

  /**
   * The placement of a write of {@code origin} from batch {@code batchId}, whose key columns
   * are {@code keyNames} (flat names, in key order).
   */
  static KeyPlacement resolve(
      SparkSession spark,
      TableOrigin origin,
      long batchId,
      List<String> keyNames,
      CaseInsensitiveStringMap options) {
    Checkpoint ckpt = Checkpoint.open(origin.checkpoint(), spark.sessionState().newHadoopConf());
    String given = options.get(OPTION);
    if (given == null)
      given = spark.sessionState().conf().getConfString(Settings.WRITE_PARTITIONED_BY, null);
    String uid = origin.operator().uid();
    if (KeyPlacement.isStrict(ckpt, origin.operator(), batchId)) {
      if (given != null
          && !KeyPlacement.given(parse(origin, given, keyNames)).byAllColumns(keyNames.size())) {
        throw Errors.badPartitioning(
            origin.checkpoint(),
            uid,
            origin.state(),
            "partitioned_by"
                + " '"
                + given
                + "' does not apply: offsets/"
                + batchId
                + " records the strict"
                + " distribution, so the query places keys by all key columns ("
                + String.join(",", keyNames)
                + ").");
      }
      return KeyPlacement.STRICT;
    }
    String source = "partitioned_by '" + given + "'";
    if (given == null && origin.queryPartitioning() != null) {
      given = origin.queryPartitioning();
      source =
          "the partitioning '"
              + given
              + "' of the catalog's query (--query, or"
              + " attach(query=))";
    }
    if (given == null) {
      List<String> recorded = RecordedPartitioning.read(ckpt).get(origin.operator().id());
      if (recorded != null) {
        given = String.join(",", recorded);
        source =
            "the partitioning '"
                + given
                + "' the query recorded when it ran ("
                + RecordedPartitioning.FILE
                + ")";
      }
    }
    int[] columns = given == null ? null : parse(origin, given, keyNames);
    String verified =
        ckpt.location()
            + "|"
            + batchId
            + "@"
            + ckpt.commitTimeMs(batchId)
            + "|"
            + origin.ref()
            + "|"
            + java.util.Arrays.toString(columns);
    if (columns != null && VERIFIED.contains(verified)) return KeyPlacement.given(columns);
    Map<String, String> read = origin.ref().options(origin.checkpoint(), batchId);
    StructType schema = StateSource.schema(ckpt, origin.operator(), origin.state(), batchId, read);
    PlacementCheck check =
        PlacementCheck.run(read, schema, origin.operator().numPartitions(), columns);
    if (columns == null) {
      throw Errors.unknownPartitioning(
          origin.checkpoint(), uid, origin.state(), batchId, check.fits(keyNames));
    }
    long misplaced = check.misplaced(columns);
    if (misplaced > 0) {
      throw Errors.partitioningMismatch(
          origin.checkpoint(), uid, origin.state(), source, misplaced, check.fits(keyNames));
    }
    if (VERIFIED.size() > 1000) VERIFIED.clear();
    VERIFIED.add(verified);
    return KeyPlacement.given(columns);
  }

  /**
   * Key column indexes of a comma-separated list of key column names (any case), in the given
   * order: {@code hash(k2, k1)} places keys elsewhere than {@code hash(k1, k2)}.
   */
  private static int[] parse(TableOrigin origin, String given, List<String> keyNames) {
    List<Integer> indexes = new ArrayList<>();
    for (String part : given.split(",")) {
      String name = part.trim().replace("`", "");
      int index = -1;
      for (int i = 0; i < keyNames.size(); i++) {
        if (keyNames.get(i).toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
          index = i;
        }
      }
      if (index < 0 || indexes.contains(index)) {
        throw Errors.badPartitioning(
            origin.checkpoint(),
            origin.operator().uid(),
            origin.state(),
            "partitioned_by '"
                + given
                + "' names "
                + (index < 0 ? "'" + name + "', not a key column" : "'" + name + "' twice")
                + "; the key columns are "
                + String.join(", ", keyNames)
                + ".");
      }
      indexes.add(index);
    }
    return indexes.stream().mapToInt(Integer::intValue).toArray();
  }
}
