package dev.sparksavepoint.actions;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.RecordedPartitioning;
import dev.sparksavepoint.checkpoint.StoreFiles;
import dev.sparksavepoint.checkpoint.ValueNames;
import dev.sparksavepoint.commit.CheckpointCommit;
import dev.sparksavepoint.commit.EditClaim;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.store.CarryOver;
import dev.sparksavepoint.store.StoreBatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Creates an empty savepoint: a new checkpoint folder with the operator layout, state schemas,
 * shuffle partitions, provider and source positions of a template checkpoint of the same query,
 * whose only committed batch 0 holds empty state in every store partition. Writes into it
 * (INSERT, INSERT OVERWRITE) then bootstrap the state a brand-new run of the query starts from.
 *
 * <p>What the target takes from the template's last committed batch N:
 * <ul>
 *   <li>{@code offsets/0} := {@code offsets/N} (source offsets, watermark, recorded confs), so the
 *       new run reads input after the template's position; {@code sources/} as is (file sources
 *       keep their log); {@code commits/0} := {@code commits/N} (with the state checkpoint ids
 *       of the new versions when the template uses checkpoint format v2);
 *   <li>operator metadata and state schema files (no state data), v2 operator metadata renamed
 *       to batch 0 and pointing at the target's own schema files;
 *   <li>the names the query recorded for its value columns ({@link ValueNames});
 *   <li>a new query id in {@code metadata}.
 * </ul>
 * Every store partition gets an empty version 1 through Spark's own providers. The target's
 * files become a checkpoint last: {@code commits/0} is written after everything else, and a
 * failure removes the target folder again.
 *
 * <p>Example: {@code EmptySavepoint.create(spark, "/savepoints/orders-v2", "/ckpt/orders")}
 */
public final class EmptySavepoint {
  /**
   * A schema file URI in operator metadata v2, up to the operator id (group 1): rewritten to the
   * target's state folder, also when the template was itself copied from elsewhere.
   */
  private static final Pattern SCHEMA_FILE = Pattern.compile("\"[^\"]*/(\\d+)/_stateSchema/");

  private EmptySavepoint() {}

  /**
   * Creates {@code target} like {@link #create} when {@code template} is given (not blank) and
   * {@code target} holds no checkpoint yet; the one place "create the savepoint if missing" is
   * decided (catalog option {@code like} and Python's {@code session(path, like=...)}).
   *
   * @return true when it created the savepoint
   */
  public static boolean createIfMissing(SparkSession spark, String target, String template) {
    if (template == null
        || template.isBlank()
        || Checkpoint.exists(target, spark.sessionState().newHadoopConf())) {
      return false;
    }
    create(spark, target, template);
    return true;
  }

  /**
   * Creates the empty savepoint {@code target} shaped like {@code template}; returns a one-line
   * summary. {@code target} must not exist or be an empty folder.
   */
  public static String create(SparkSession spark, String target, String template) {
    Configuration conf = spark.sessionState().newHadoopConf();
    Checkpoint from = Checkpoint.open(template, conf);
    if (!from.hasCommittedBatch()) throw Errors.noCommittedBatch(template);
    long n = from.lastCommitted();
    NewFolder folder =
        NewFolder.claim(
            target,
            ("{\"id\":\"" + UUID.randomUUID() + "\"}\n").getBytes(StandardCharsets.UTF_8),
            conf,
            "create an empty savepoint like '" + template + "'");
    Path root = folder.root();
    FileSystem fs = folder.fs();
    try {
      copyLayout(from, n, fs, root, conf);
      List<Operator> operators = from.operators(n);
      Map<Long, Long> ids = new HashMap<>();
      for (Operator op : operators) ids.put(op.id(), op.id());
      ValueNames.copy(from, root, ids, conf);
      RecordedPartitioning.copy(from, root, ids, conf);
      boolean formatV2 = recordsUniqueIds(from, n);
      StoreBatch plan = StoreBatch.emptyCopy(spark, from, n, target, formatV2);
      List<PartitionCommit> commits =
          CarryOver.commitAll(plan, "savepoint: empty state for " + target);
      new CheckpointLog(fs, root, CheckpointLog.OFFSETS).create(0, from.offsetLog().bytes(n), conf);
      EditClaim.recordBatch(root, 0, "empty savepoint like " + template, conf);
      folder.identify();
      byte[] commit = from.commitLog().bytes(n);
      if (formatV2) {
        commit =
            CheckpointLog.withStateUniqueIds(
                commit, CheckpointCommit.stateUniqueIds(plan, commits));
      }
      new CheckpointLog(fs, root, CheckpointLog.COMMITS).create(0, commit, conf);
      return "Created empty savepoint '"
          + target
          + "' shaped like batch "
          + n
          + " of '"
          + template
          + "': "
          + operators.size()
          + " stateful operator(s), "
          + plan.stores().size()
          + " store(s); committed batch 0 holds empty state.";
    } catch (IOException | RuntimeException e) {
      folder.remove();
      if (e instanceof RuntimeException r) throw r;
      throw Errors.writeFailed(target, "create an empty savepoint like '" + template + "'", e);
    }
  }

  /** True when commits/n records state checkpoint ids (checkpoint format v2). */
  private static boolean recordsUniqueIds(Checkpoint from, long n) {
    try {
      return CheckpointLog.stateUniqueIds(from.commitLog().metadata(n)) != null;
    } catch (IOException e) {
      throw Errors.io(from.location(), e);
    }
  }

  /** {@code sources/}, and every operator's metadata and schema files. */
  private static void copyLayout(
      Checkpoint from, long n, FileSystem fs, Path root, Configuration conf) throws IOException {
    FileSystem src = from.fileSystem();
    Path sources = new Path(from.root(), "sources");
    if (src.exists(sources))
      FileUtil.copy(src, sources, fs, new Path(root, "sources"), false, conf);
    Path state = new Path(from.root(), "state");
    if (!src.exists(state)) return;
    String toState = fs.makeQualified(new Path(root, "state")).toString();
    for (FileStatus op : src.listStatus(state)) {
      if (!op.isDirectory() || !op.getPath().getName().matches("\\d+")) continue;
      copyMetadata(
          src,
          op.getPath(),
          fs,
          new Path(new Path(root, "state"), op.getPath().getName()),
          n,
          toState,
          conf);
    }
  }

  /**
   * Copies an operator folder without its store data: {@code _metadata} (v1 metadata; v2
   * metadata only as of batch n, renamed to 0), {@code _stateSchema}, and each partition's
   * {@code _metadata} schema files.
   */
  private static void copyMetadata(
      FileSystem src, Path from, FileSystem fs, Path to, long n, String toState, Configuration conf)
      throws IOException {
    for (FileStatus entry : src.listStatus(from)) {
      Path path = entry.getPath();
      String name = path.getName();
      Path dest = new Path(to, name);
      if (name.equals("v2") && entry.isDirectory()) {
        Path latest = CheckpointCopy.latestAtOrBefore(src, path, n);
        if (latest != null) {
          String text =
              SCHEMA_FILE
                  .matcher(new String(CheckpointFiles.readAll(src, latest), StandardCharsets.UTF_8))
                  .replaceAll(Matcher.quoteReplacement("\"" + toState + "/") + "$1/_stateSchema/");
          CheckpointFiles.writeNew(
              new Path(dest, "0"), text.getBytes(StandardCharsets.UTF_8), conf);
        }
      } else if (entry.isDirectory()) {
        if (!name.equals("SSTs")) copyMetadata(src, path, fs, dest, n, toState, conf);
      } else if (!StoreFiles.isData(name) && isMetadata(path)) {
        FileUtil.copy(src, path, fs, dest, false, conf);
      }
    }
  }

  /** True for files inside {@code _metadata} or {@code _stateSchema} folders. */
  private static boolean isMetadata(Path file) {
    for (Path p = file.getParent(); p != null; p = p.getParent()) {
      if (p.getName().equals("_metadata") || p.getName().equals("_stateSchema")) return true;
    }
    return false;
  }
}
