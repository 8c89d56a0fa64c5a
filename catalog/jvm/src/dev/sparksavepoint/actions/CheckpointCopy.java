package dev.sparksavepoint.actions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sparksavepoint.checkpoint.CancellableJobs;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.FileDigests;
import dev.sparksavepoint.checkpoint.KeyPlacement;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.OperatorUids;
import dev.sparksavepoint.checkpoint.RecordedPartitioning;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.checkpoint.ValueNames;
import dev.sparksavepoint.commit.CheckpointCommit;
import dev.sparksavepoint.commit.CrashPoint;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.image.CopiedPartition;
import dev.sparksavepoint.image.ImagePlan;
import dev.sparksavepoint.image.ImagePlan.StoreCopy;
import dev.sparksavepoint.image.StateImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Copies batch N of a checkpoint into a new checkpoint folder that a streaming query can start
 * from (the engine of savepoint take and restore), changing partition count, provider and
 * operator ids on the way ({@link CopyChanges}). The target gets:
 * <ul>
 *   <li>{@code metadata} first (the same query id), created fail-if-exists: it claims the
 *       folder, so of two copies racing for one target only one writes;
 *   <li>{@code offsets/N-1} and {@code offsets/N} (a restart needs both) with the new partition
 *       count and provider recorded: a copy killed before its commit leaves batch N planned
 *       and not committed, which a query does not continue from (it runs batch N again: from
 *       its input for batch 0, else it fails for want of state version N);
 *   <li>{@code sources/} as is; each kept operator's metadata (operator id, partition count and
 *       the schema file paths of metadata v2 rewritten) and schema files;
 *   <li>the state of batch N as version N+1, one full image per store partition
 *       ({@link StateImage}, through Spark's own providers);
 *   <li>the user uids ({@code _savepoint/uids.json}) and, except for an upgrade, the names the
 *       query recorded for its value columns ({@code _savepoint/value-names.json}), by the
 *       kept operators' new ids;
 *   <li>{@code commits/N}, last: before it exists the folder is no checkpoint a query would
 *       continue.
 * </ul>
 * Nothing of the source changes: state is read through read-only stores. A copy that fails
 * removes the target folder it claimed (or empties the empty folder it was given).
 */
final class CheckpointCopy {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String PARTITIONS_CONF = "spark.sql.shuffle.partitions";

  /** A schema file path in operator metadata v2, up to its operator folder. */
  private static final Pattern SCHEMA_PATH = Pattern.compile("^.*/state/\\d+/_stateSchema/");

  /** A metadata log entry: {@code 12}, or the compacted {@code 12.compact}. */
  private static final Pattern LOG_ENTRY = Pattern.compile("(\\d+)(\\.compact)?");

  /**
   * What a finished copy holds; {@code digests}: the state files' digests by relative path
   * (when asked for).
   */
  record Copied(
      Checkpoint source,
      long batchId,
      Path root,
      FileSystem fs,
      ImagePlan plan,
      List<Operator> operators,
      CopyChanges.Resolved resolved,
      List<PartitionCommit> commits,
      String provider,
      Map<String, FileDigests.Digest> digests) {}

  /** Runs after the copy is complete (the target is a checkpoint), before it is reported. */
  interface Finish {
    void run(Copied copied) throws IOException;

    /** True when it needs the digests of the state files ({@link Copied#digests}). */
    default boolean needsDigests() {
      return false;
    }

    /**
     * True when it needs every partition's row count ({@link Copied#commits}), also where no
     * file records it (an HDFS-backed image copied as it is: each record read once).
     */
    default boolean needsRowCounts() {
      return false;
    }
  }

  private CheckpointCopy() {}

  /**
   * Copies batch {@code n} of {@code from} into {@code target} with {@code changes};
   * {@code what} names the action in messages ("take a savepoint of ..."). {@code check} runs
   * after the changes are validated and before anything is written (or null).
   */
  static Copied run(
      SparkSession spark,
      Checkpoint from,
      long n,
      String target,
      CopyChanges changes,
      String what,
      Runnable check,
      Finish finish) {
    return run(spark, from, n, target, changes, what, check, finish, null);
  }

  /**
   * What an upgrade writes beyond {@link CopyChanges}: the stores to write (instead of plain
   * copies: with changed values, or empty for new operators), and the operators (by new id)
   * whose metadata and schema files come from the new query's planned {@code scratch}
   * checkpoint.
   */
  record Upgrade(List<StoreCopy> copies, Checkpoint scratch, Set<Long> fromScratch) {}

  /** {@link #run}, for an upgrade when {@code upgrade} is given. */
  static Copied run(
      SparkSession spark,
      Checkpoint from,
      long n,
      String target,
      CopyChanges changes,
      String what,
      Runnable check,
      Finish finish,
      Upgrade upgrade) {
    Configuration conf = spark.sessionState().newHadoopConf();
    from.checkLogs(n);
    from.checkMetadata();
    List<Operator> operators = from.operators(n);
    CopyChanges.Resolved resolved;
    try {
      resolved =
          changes.resolve(
              from.location(), operators, OperatorUids.read(from.fileSystem(), from.root()));
    } catch (IOException e) {
      throw Errors.corruptFile(
          from.location(),
          OperatorUids.FILE,
          "the checkpoint",
          e,
          "Remove the file or restore it from a copy.");
    }
    String provider =
        changes.provider() == null
            ? from.recordedConf(n).getOrDefault(StoreProviders.PROVIDER_CONF, CopyChanges.HDFS)
            : CopyChanges.providerClass(from.location(), changes.provider());
    boolean ids = hasUniqueIds(from, n);
    List<StoreCopy> copies =
        plan(from, n, operators, resolved, changes.partitions(), provider, ids, conf);
    if (upgrade != null) copies = upgrade.copies();
    ImagePlan plan = ImagePlan.of(spark, from, n, target, copies, provider, ids);
    long driverBytes = StateImage.driverBytes(spark, from.location());
    if (finish != null && finish.needsDigests()) plan = plan.withFileDigests();
    if (finish != null && finish.needsRowCounts()) plan = plan.withRowCounts();
    if (check != null) check.run();
    NewFolder folder = NewFolder.claim(target, readMetadata(from), conf, what);
    Path root = folder.root();
    FileSystem fs = folder.fs();
    try {
      CrashPoint.reach("copy-claimed");
      writeOffsets(
          from, n, folder, changes.partitions(), changes.provider() == null ? null : provider);
      CrashPoint.reach("copy-planned");
      copyLayout(from, n, folder, operators, resolved, changes.partitions(), conf, upgrade);
      List<CopiedPartition> images = StateImage.copy(plan, driverBytes);
      List<PartitionCommit> commits = images.stream().map(CopiedPartition::commit).toList();
      Map<String, FileDigests.Digest> digests = new HashMap<>();
      for (CopiedPartition image : images) {
        for (FileDigests.Digest d : image.files()) digests.put(d.path(), d);
      }
      OperatorUids.write(root, resolved.userUids(), conf);
      if (upgrade == null) {
        ValueNames.copy(from, root, resolved.ids(), conf);
        RecordedPartitioning.copy(from, root, resolved.ids(), conf);
      }
      CrashPoint.reach("copy-state");
      folder.identify();
      CrashPoint.reach("copy-identified");
      writeCommit(from, n, fs, root, plan, commits, conf);
      Copied copied =
          new Copied(from, n, root, fs, plan, operators, resolved, commits, provider, digests);
      if (finish != null) finish.run(copied);
      return copied;
    } catch (Exception e) { // AnalysisException too: Errors throws it unchecked
      CancellableJobs.awaitIdle(spark.sparkContext(), 30_000); // no task writes there any more
      folder.remove();
      if (e instanceof IOException io) throw Errors.writeFailed(target, what, io);
      throw Errors.rethrow(e);
    }
  }

  /** The source's {@code metadata} file (its query id), which the target keeps. */
  private static byte[] readMetadata(Checkpoint from) {
    try {
      return CheckpointFiles.readAll(from.fileSystem(), new Path(from.root(), "metadata"));
    } catch (IOException e) {
      throw Errors.io(from.location(), e);
    }
  }

  private static boolean hasUniqueIds(Checkpoint from, long n) {
    try {
      return CheckpointLog.stateUniqueIds(from.commitLog().metadata(n)) != null;
    } catch (IOException e) {
      throw Errors.corruptFile(
          from.location(),
          CheckpointLog.COMMITS + "/" + n,
          "batch " + n,
          e,
          "Restore the file from a copy of the checkpoint.");
    }
  }

  /** The stores to copy, validated against what Spark can run after the copy. */
  private static List<StoreCopy> plan(
      Checkpoint from,
      long n,
      List<Operator> operators,
      CopyChanges.Resolved resolved,
      int partitions,
      String provider,
      boolean ids,
      Configuration conf) {
    boolean hdfs = provider.equals(CopyChanges.HDFS);
    for (Operator op : operators) {
      if (resolved.target(op.id()) == null) continue;
      if (hdfs && op.kind().needsColumnFamilies()) {
        throw Errors.restoreUnsupported(
            from.location(),
            op.uid(),
            "transformWithState state"
                + " lives in column families, which only RocksDB has: keep --provider rocksdb.");
      }
      if (hdfs && ids) {
        throw Errors.restoreUnsupported(
            from.location(),
            op.uid(),
            "the checkpoint uses"
                + " checkpoint format v2 (state checkpoint ids), which only RocksDB supports: keep"
                + " --provider rocksdb.");
      }
      boolean rehash = partitions > 0 && partitions != op.numPartitions();
      if (rehash && !op.kind().rehashable()) {
        throw Errors.restoreUnsupported(
            from.location(),
            op.uid(),
            "changing the partitions"
                + " of "
                + op.name()
                + " state is not supported (its keys' partitioning is not"
                + " known); keep the partition count.");
      }
      if (rehash && !KeyPlacement.isStrict(from, op, n)) {
        throw Errors.restoreUnsupported(
            from.location(),
            op.uid(),
            "its query placed keys in"
                + " state partitions by the partitioning of its input, not by all key columns"
                + " (offsets/"
                + n
                + " does not record"
                + " spark.sql.streaming.statefulOperator.useStrictDistribution=true, as for every"
                + " query started before Spark 3.3), so a key rehashed into "
                + partitions
                + " partitions would not be where the restarted"
                + " query looks for it; keep the partition count (--partitions "
                + op.numPartitions()
                + ").");
      }
    }
    List<StoreCopy> copies = new ArrayList<>();
    for (StoreSpec spec : ImagePlan.stores(from, n, conf)) {
      Long to = resolved.target(spec.operatorId());
      if (to == null) continue;
      int count = partitions > 0 ? partitions : spec.numPartitions();
      if (count != spec.numPartitions() && spec.keySchema().isEmpty()) {
        throw Errors.restoreUnsupported(
            from.location(),
            "operator " + spec.operatorId(),
            "its state has no key (a global aggregation), so Spark keeps it in one partition;"
                + " keep the partition count.");
      }
      copies.add(
          new StoreCopy(
              spec,
              new StoreSpec(
                  to,
                  spec.storeName(),
                  count,
                  spec.keySchema(),
                  spec.valueSchema(),
                  spec.storeIndex(),
                  spec.families())));
    }
    return copies;
  }

  /** {@code sources/}, and each kept operator's metadata and schema files. */
  private static void copyLayout(
      Checkpoint from,
      long n,
      NewFolder folder,
      List<Operator> operators,
      CopyChanges.Resolved resolved,
      int partitions,
      Configuration conf,
      Upgrade upgrade)
      throws IOException {
    copySources(from, n, folder.fs(), new Path(folder.root(), "sources"), conf);
    for (Operator op : operators) {
      Long to = resolved.target(op.id());
      if (to == null || upgrade != null && upgrade.fromScratch().contains(to)) continue;
      copyOperatorLayout(from, n, op, to, partitions, folder, conf);
    }
    if (upgrade == null) return;
    for (long id : upgrade.fromScratch()) {
      Operator op =
          upgrade.scratch().operators(0).stream()
              .filter(o -> o.id() == id)
              .findFirst()
              .orElseThrow();
      copyOperatorLayout(upgrade.scratch(), 0, op, id, partitions, folder, conf);
    }
  }

  /** Operator {@code op}'s metadata and schema files of batch {@code n}, as operator {@code to}. */
  private static void copyOperatorLayout(
      Checkpoint from,
      long n,
      Operator op,
      long to,
      int partitions,
      NewFolder folder,
      Configuration conf)
      throws IOException {
    FileSystem fs = folder.fs();
    Path root = folder.root();
    FileSystem src = from.fileSystem();
    String toState = fs.makeQualified(new Path(root, "state")).toString();
    Path opFrom = new Path(new Path(from.root(), "state"), Long.toString(op.id()));
    Path opTo = new Path(new Path(root, "state"), Long.toString(to));
    int count = partitions > 0 ? partitions : op.numPartitions();
    Path v1 = new Path(opFrom, "_metadata/metadata");
    if (src.exists(v1)) {
      folder.write(
          new Path(opTo, "_metadata/metadata"),
          operatorMetadata(CheckpointFiles.readAll(src, v1), to, count, null));
    }
    Path v2 = latestAtOrBefore(src, new Path(opFrom, "_metadata/v2"), n);
    if (v2 != null) {
      String schemas = toState + "/" + to + "/_stateSchema/";
      folder.write(
          new Path(opTo, "_metadata/v2/" + v2.getName()),
          operatorMetadata(CheckpointFiles.readAll(src, v2), to, count, schemas));
    }
    Path schemas = new Path(opFrom, "_stateSchema");
    if (src.exists(schemas))
      FileUtil.copy(src, schemas, fs, new Path(opTo, "_stateSchema"), false, conf);
    copySchemaFiles(src, new Path(opFrom, "0"), fs, new Path(opTo, "0"), conf);
  }

  /**
   * {@code sources/}: each source's log up to the entry batch N's offset names (a file
   * source's {@code logOffset}; batch N for others). A running query logs a source's next
   * entries before it commits their batch: copied, they would make the copy skip those files.
   */
  private static void copySources(
      Checkpoint from, long n, FileSystem fs, Path target, Configuration conf) throws IOException {
    FileSystem src = from.fileSystem();
    Path sources = new Path(from.root(), "sources");
    if (!src.exists(sources)) return;
    String[] offsets = new String(from.offsetLog().bytes(n), StandardCharsets.UTF_8).split("\n");
    for (FileStatus source : src.listStatus(sources)) {
      Path to = new Path(target, source.getPath().getName());
      if (!source.isDirectory()) {
        FileUtil.copy(src, source.getPath(), fs, to, false, conf);
        continue;
      }
      long last = lastLogEntry(offsets, source.getPath().getName(), n);
      for (FileStatus entry : src.listStatus(source.getPath())) {
        Matcher id = LOG_ENTRY.matcher(entry.getPath().getName());
        if (id.matches() && Long.parseLong(id.group(1)) > last) continue;
        FileUtil.copy(
            src, entry.getPath(), fs, new Path(to, entry.getPath().getName()), false, conf);
      }
    }
  }

  /**
   * The last log entry of source {@code name} (its index) that batch N uses: the
   * {@code logOffset} of its line in the offsets entry (a file source), else {@code n}.
   */
  static long lastLogEntry(String[] offsetLines, String name, long n) {
    if (!name.matches("\\d+")) return n;
    int line = 2 + Integer.parseInt(name); // a version line, the metadata, one line per source
    if (line >= offsetLines.length) return n;
    try {
      JsonNode offset = JSON.readTree(offsetLines[line]);
      return offset != null && offset.has("logOffset") ? offset.get("logOffset").asLong() : n;
    } catch (IOException e) {
      return n; // "-" (no offset yet) or a source's own format
    }
  }

  /** The {@code _metadata} files (v1 state schema) under a partition folder, store by store. */
  private static void copySchemaFiles(
      FileSystem src, Path from, FileSystem fs, Path to, Configuration conf) throws IOException {
    if (!src.exists(from)) return;
    for (FileStatus entry : src.listStatus(from)) {
      if (!entry.isDirectory()) continue;
      String name = entry.getPath().getName();
      if (name.equals("_metadata")) {
        FileUtil.copy(src, entry.getPath(), fs, new Path(to, name), false, conf);
      } else if (!name.equals("SSTs")) {
        copySchemaFiles(src, entry.getPath(), fs, new Path(to, name), conf);
      }
    }
  }

  /**
   * Operator metadata (v1 or v2: a version line, then JSON) for operator {@code id} with
   * {@code partitions} partitions; v2 schema file paths re-pointed to {@code schemas}.
   */
  static byte[] operatorMetadata(byte[] file, long id, int partitions, String schemas)
      throws IOException {
    return rewritten(file, id, partitions, schemas);
  }

  /** Operator metadata with only its v2 schema file paths re-pointed to {@code schemas}. */
  static byte[] repointedSchemas(byte[] file, String schemas) throws IOException {
    return rewritten(file, null, null, schemas);
  }

  private static byte[] rewritten(byte[] file, Long id, Integer partitions, String schemas)
      throws IOException {
    String text = new String(file, StandardCharsets.UTF_8);
    int newline = text.indexOf('\n');
    ObjectNode json = (ObjectNode) JSON.readTree(text.substring(newline + 1));
    if (id != null) ((ObjectNode) json.path("operatorInfo")).put("operatorId", id);
    for (JsonNode store : json.path("stateStoreInfo")) {
      ObjectNode info = (ObjectNode) store;
      if (partitions != null) info.put("numPartitions", partitions);
      if (schemas == null) continue;
      if (info.get("stateSchemaFilePaths") instanceof ArrayNode paths) {
        for (int i = 0; i < paths.size(); i++) {
          paths.set(i, TextNode.valueOf(repoint(paths.get(i).asText(), schemas)));
        }
      }
      if (info.has("stateSchemaFilePath")) {
        info.put("stateSchemaFilePath", repoint(info.get("stateSchemaFilePath").asText(), schemas));
      }
    }
    return (text.substring(0, newline + 1) + JSON.writeValueAsString(json))
        .getBytes(StandardCharsets.UTF_8);
  }

  private static String repoint(String path, String schemas) {
    Matcher m = SCHEMA_PATH.matcher(path);
    return m.find() ? schemas + path.substring(m.end()) : path;
  }

  /**
   * {@code offsets/N-1} and {@code N}, with the new partition count and provider recorded:
   * written first, right after the claim, so that the folder of a copy killed before its commit
   * is a batch N planned and not committed; a query started there runs batch N again, which
   * needs state version N, which no copy has (only batch 0's, empty, exists): it fails instead
   * of starting from partial state.
   */
  private static void writeOffsets(
      Checkpoint from, long n, NewFolder folder, int partitions, String provider)
      throws IOException {
    CheckpointLog offsets = new CheckpointLog(folder.fs(), folder.root(), CheckpointLog.OFFSETS);
    for (long b = Math.max(0, n - 1); b <= n; b++) {
      if (!from.fileSystem().exists(from.offsetLog().file(b))) continue;
      folder.write(offsets.file(b), offsetEntry(from.offsetLog().bytes(b), partitions, provider));
      keepTime(from.fileSystem(), from.offsetLog().file(b), folder.fs(), offsets.file(b));
    }
  }

  /** {@code commits/N}, last: it makes the folder a checkpoint. */
  private static void writeCommit(
      Checkpoint from,
      long n,
      FileSystem fs,
      Path root,
      ImagePlan plan,
      List<PartitionCommit> commits,
      Configuration conf)
      throws IOException {
    byte[] commit = from.commitLog().bytes(n);
    if (plan.hasUniqueIds()) {
      commit =
          CheckpointLog.withStateUniqueIds(commit, CheckpointCommit.stateUniqueIds(plan, commits));
    }
    CheckpointLog commitLog = new CheckpointLog(fs, root, CheckpointLog.COMMITS);
    commitLog.create(n, commit, conf, () -> CrashPoint.reach("commit-temp"));
    keepTime(from.fileSystem(), from.commitLog().file(n), fs, commitLog.file(n));
  }

  /**
   * Gives a copied log entry the source entry's modification time: a log entry's time is when
   * the batch was planned or committed ({@code TIMESTAMP AS OF}, the guard against editing
   * under a running query), not when it was copied. Best effort: stores without settable
   * times keep the copy time.
   */
  static void keepTime(FileSystem src, Path from, FileSystem fs, Path to) {
    try {
      fs.setTimes(to, src.getFileStatus(from).getModificationTime(), -1);
    } catch (IOException | UnsupportedOperationException e) {
      // the copy's own time stands
    }
  }

  /** An offsets entry with the partition count and provider recorded (when they change). */
  static byte[] offsetEntry(byte[] entry, int partitions, String provider) throws IOException {
    if (partitions <= 0 && provider == null) return entry;
    String text = new String(entry, StandardCharsets.UTF_8);
    String[] lines = text.split("\n", -1);
    ObjectNode metadata = (ObjectNode) JSON.readTree(lines[1]);
    ObjectNode conf =
        metadata.has("conf") ? (ObjectNode) metadata.get("conf") : metadata.putObject("conf");
    if (partitions > 0) conf.put(PARTITIONS_CONF, Integer.toString(partitions));
    if (provider != null) conf.put(StoreProviders.PROVIDER_CONF, provider);
    lines[1] = JSON.writeValueAsString(metadata);
    return String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
  }

  /** The file named by the largest batch id at or before {@code n} in a versioned folder. */
  static Path latestAtOrBefore(FileSystem fs, Path dir, long n) throws IOException {
    if (!fs.exists(dir)) return null;
    Path best = null;
    long bestId = -1;
    for (FileStatus status : fs.listStatus(dir)) {
      String name = status.getPath().getName();
      if (!name.matches("\\d+")) continue;
      long id = Long.parseLong(name);
      if (id <= n && id > bestId) {
        bestId = id;
        best = status.getPath();
      }
    }
    return best;
  }

  /** Bytes of every file under {@code dir} (0 when missing). */
  static long bytes(FileSystem fs, Path dir) {
    try {
      return fs.exists(dir) ? fs.getContentSummary(dir).getLength() : 0;
    } catch (IOException e) {
      return -1;
    }
  }

  static Map<String, String> providerNames() {
    return Map.of(CopyChanges.HDFS, "hdfs", CopyChanges.ROCKSDB, "rocksdb");
  }
}
