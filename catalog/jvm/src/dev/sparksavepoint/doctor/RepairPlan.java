package dev.sparksavepoint.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.commit.RunRecords;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongFunction;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.SparkSession;

/**
 * What {@code repair} would do, file by file, and why; nothing is changed here. From the
 * doctor's examination:
 *
 * <ul>
 *   <li>the batch to keep: the last committed batch whose logs read and whose state loads from
 *       the files (or the one asked for); the batches after it are rolled back: their commit and
 *       offsets entries, the state files of later versions and their operator metadata go, and
 *       the query runs them again from its sources on restart;
 *   <li>a snapshot that is damaged (or names SST files that are gone) goes when older snapshots
 *       and the changes after them build the version without it (Spark writes a new one);
 *   <li>state files that do not match their checksums go (the kept batch does not need them);
 *   <li>log files changed after they were written get a checksum file that matches;
 *   <li>temporary files of killed writers, and offsets planned past the one uncommitted batch
 *       Spark allows, go.
 * </ul>
 *
 * What it cannot fix (a missing metadata file, disagreeing settings, ...) it names, for hands.
 */
public final class RepairPlan {
  /**
   * One file-level step: {@link #REMOVE} or {@link #REWRITE_CHECKSUM} a file, or {@link #WRITE}
   * it with {@code content} (null for the others), and why.
   */
  public record Step(String action, String file, String why, byte[] content) {
    Step(String action, String file, String why) {
      this(action, file, why, null);
    }
  }

  public static final String REMOVE = "remove";
  public static final String REWRITE_CHECKSUM = "rewrite checksum";
  public static final String WRITE = "write";

  /** The classes of findings a repair does not address. */
  static final Set<Check> BY_HAND =
      Set.of(
          Check.LOG_GAP,
          Check.OPERATOR_METADATA_MISSING,
          Check.SCHEMA_FILE_MISSING,
          Check.PARTITIONS_DISAGREE,
          Check.EXTRA_PARTITION,
          Check.PROVIDER_DISAGREE,
          Check.FORMAT_DISAGREE,
          Check.EDIT_LEFTOVER,
          Check.QUERY_ACTIVE);

  /**
   * A repair's plan.
   *
   * @param lastCommitted the checkpoint's last committed batch
   * @param keptBatch the batch the repaired checkpoint ends at (== lastCommitted: no rollback)
   * @param byHand the findings the steps do not address
   */
  public record Plan(
      String location, long lastCommitted, long keptBatch, List<Step> steps, List<Finding> byHand) {

    /** One line: what the repair does. */
    public String summary() {
      if (steps.isEmpty()) return location + ": nothing to repair";
      long removed = steps.stream().filter(s -> s.action().equals(REMOVE)).count();
      long rewritten = steps.size() - removed;
      return location
          + ": "
          + (keptBatch < lastCommitted
              ? "roll back from batch " + lastCommitted + " to batch " + keptBatch + ", "
              : "")
          + removed
          + " file(s) removed, "
          + rewritten
          + " checksum(s) rewritten";
    }
  }

  private final Doctor.Examination exam;
  private final Set<String> unusable = new HashSet<>();
  private final Set<String> unreadableLogs = new HashSet<>();
  private final Map<String, Step> steps = new LinkedHashMap<>();

  private RepairPlan(Doctor.Examination exam) {
    this.exam = exam;
    for (FileChecksums.Mismatch m : exam.mismatches()) {
      if (m.path().startsWith("state/")) unusable.add(m.path());
    }
    for (Finding f : exam.findings()) {
      if (f.check() == Check.LOG_ENTRY_UNREADABLE || f.check() == Check.LOG_ENTRY_NEWER) {
        unreadableLogs.add(f.file());
      }
    }
  }

  /**
   * The plan for the checkpoint at {@code location}; {@code toBatch}: the batch to roll back to
   * (-1: the last one whose state loads).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_NO_SUCH_BATCH when {@code toBatch}
   *     is not committed; SAVEPOINT_CORRUPT_FILE when no committed batch's state loads
   */
  public static Plan of(SparkSession spark, String location, long toBatch) {
    return of(spark, location, toBatch, null, null);
  }

  /**
   * The plan, where streaming Dataset {@code query} (output mode {@code outputMode}; null: no
   * query) also writes the state schema files and operator metadata the checkpoint lost, as its
   * plan writes them ({@link SchemaRebuild}).
   */
  public static Plan of(
      SparkSession spark, String location, long toBatch, Dataset<Row> query, String outputMode) {
    Plan plan = new RepairPlan(Doctor.examine(spark, location)).plan(location, toBatch);
    List<String> lost =
        plan.byHand().stream()
            .filter(f -> SchemaRebuild.REBUILT.contains(f.check()))
            .map(Finding::file)
            .toList();
    if (query == null || lost.isEmpty()) return plan;
    List<Step> rebuilt =
        SchemaRebuild.steps(spark, location, query, outputMode, lost, plan.keptBatch());
    List<Step> steps = new ArrayList<>(plan.steps());
    steps.addAll(rebuilt);
    List<Finding> byHand =
        plan.byHand().stream()
            .filter(f -> rebuilt.stream().noneMatch(s -> SchemaRebuild.writes(s, f.file())))
            .toList();
    return new Plan(location, plan.lastCommitted(), plan.keptBatch(), steps, byHand);
  }

  private Plan plan(String location, long toBatch) {
    TreeSet<Long> commits = entries(CheckpointLog.COMMITS);
    TreeSet<Long> offsets = entries(CheckpointLog.OFFSETS);
    long last = commits.isEmpty() ? -1 : commits.last();
    long kept = toBatch >= 0 ? checked(location, toBatch, commits) : loadable(location, commits);
    for (long b : commits.descendingSet()) {
      if (b > kept) add(REMOVE, "commits/" + b, "rolled back: batch " + b + " runs again");
    }
    long keepPlanned = kept < last ? kept : kept + 1; // one uncommitted batch may stay planned
    for (long b : offsets.descendingSet()) {
      if (b > keepPlanned) {
        add(
            REMOVE,
            "offsets/" + b,
            kept < last ? "rolled back" : "planned past the uncommitted batch");
      }
    }
    if (kept >= 0) stateSteps(kept);
    for (FileChecksums.Mismatch m : exam.mismatches()) {
      if (m.path().startsWith("state/")) {
        add(REMOVE, m.path(), "it " + m.detail() + ", and the kept state does not need it");
        if (exam.tree().has(m.path() + ".crc")) add(REMOVE, m.path() + ".crc", "its file goes");
      } else if (!steps.containsKey(m.path())) {
        add(REWRITE_CHECKSUM, m.path(), "it " + m.detail());
      }
    }
    for (Finding f : exam.findings()) {
      if (f.check() == Check.METADATA_MISSING || f.check() == Check.METADATA_UNREADABLE) {
        steps.put(f.file(), metadataStep());
      } else if (f.check() == Check.TEMPORARY_FILE) {
        add(REMOVE, f.file(), "a killed writer's temporary file");
      } else if (f.check() == Check.ORPHAN_CHECKSUM) {
        add(REMOVE, f.file(), "a checksum file whose file is gone");
      }
    }
    List<Finding> byHand =
        exam.findings().stream()
            .filter(f -> BY_HAND.contains(f.check()) && !rolledBack(f, kept))
            .toList();
    return new Plan(location, last, kept, List.copyOf(steps.values()), byHand);
  }

  /**
   * The metadata file written anew: with the query id its runs' records hold (the tool records
   * every run it sees), else a new one, as Spark gives a checkpoint it starts.
   */
  private Step metadataStep() {
    java.util.UUID id;
    try {
      id = RunRecords.lastQueryId(exam.fs(), exam.root());
    } catch (IOException e) {
      id = null;
    }
    String why =
        id != null
            ? "the query id its last run recorded (" + RunRecords.FOLDER + "/)"
            : "a new query id: no run record holds the old one (the query's progress starts"
                + " under the new id)";
    java.util.UUID queryId = id != null ? id : java.util.UUID.randomUUID();
    String json = "{\"id\":\"" + queryId + "\"}";
    return new Step(WRITE, "metadata", why, json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** True for a gap in the logs after the kept batch: the rollback removes it. */
  private static boolean rolledBack(Finding f, long kept) {
    return f.check() == Check.LOG_GAP && f.batchId() != null && f.batchId() > kept;
  }

  /** State files of versions after the kept one, their metadata, and broken snapshots. */
  private void stateSteps(long kept) {
    long version = CheckpointLog.stateVersion(kept);
    for (long op : StoreFolders.operators(exam.tree())) {
      String dir = "state/" + op;
      for (String name : exam.tree().children(dir + "/_metadata/v2")) {
        if (name.matches("\\d+") && Long.parseLong(name) > kept) {
          add(REMOVE, dir + "/_metadata/v2/" + name, "operator metadata of a rolled-back batch");
        }
      }
      TreeSet<Integer> partitions = StoreFolders.partitions(exam.tree(), dir);
      List<String> stores = StoreFolders.stores(exam.tree(), dir, partitions);
      for (int p : partitions) {
        for (String store : stores) {
          String folder = StoreFolders.folder(dir + "/" + p, store);
          for (String name : exam.tree().children(folder)) {
            long v = StoreChain.version(name);
            String file = folder + "/" + name;
            if (v > version) {
              add(REMOVE, file, "state of version " + v + ", after the kept batch " + kept);
              if (exam.tree().has(file + ".crc")) add(REMOVE, file + ".crc", "its file goes");
            } else if (v >= 0 && unusable.contains(file) && StoreChain.isSnapshot(name)) {
              add(REMOVE, file, "a broken snapshot: the version builds from older files");
              if (exam.tree().has(file + ".crc")) add(REMOVE, file + ".crc", "its file goes");
            }
          }
        }
      }
    }
  }

  /** The last committed batch whose logs read and whose state loads from usable files. */
  private long loadable(String location, TreeSet<Long> commits) {
    for (long b : commits.descendingSet()) {
      if (loads(b)) return b;
    }
    if (commits.isEmpty()) return -1;
    throw Errors.corruptFile(
        location,
        "state/",
        "every committed batch",
        new IOException("no committed batch's state can be built from the files left"),
        "Restore the checkpoint from a copy, or start the query anew.");
  }

  private long checked(String location, long batch, TreeSet<Long> commits) {
    if (!commits.contains(batch)) {
      throw Errors.noSuchBatch(location, batch, commits.isEmpty() ? "none" : commits.toString());
    }
    return batch;
  }

  /**
   * True when batch {@code b}'s log entries read, and the one before it is there (the restart
   * reads both), and every store's version b+1 builds.
   */
  private boolean loads(long b) {
    if (!exam.tree().has("offsets/" + b)
        || (b > 0 && !exam.tree().has("offsets/" + (b - 1)))
        || unreadableLogs.contains("offsets/" + b)
        || unreadableLogs.contains("commits/" + b)) {
      return false;
    }
    Map<String, String> conf = conf(b);
    Map<Long, String[][]> ids = ids(b);
    boolean rocksdb = conf.getOrDefault(StoreProviders.PROVIDER_CONF, "").contains("RocksDB");
    String recorded = conf.get("spark.sql.shuffle.partitions");
    for (long op : StoreFolders.operators(exam.tree())) {
      String dir = "state/" + op;
      TreeSet<Integer> folders = StoreFolders.partitions(exam.tree(), dir);
      int partitions = recorded == null ? folders.size() : Integer.parseInt(recorded.trim());
      List<String> stores = StoreFolders.stores(exam.tree(), dir, folders);
      for (int p = 0; p < partitions; p++) {
        if (!folders.contains(p)) return false;
        for (int s = 0; s < stores.size(); s++) {
          String folder = StoreFolders.folder(dir + "/" + p, stores.get(s));
          if (!exam.tree().isFolder(folder)
              || !builds(
                  folder,
                  b + 1,
                  StoreFolders.uniqueId(ids, op, p, s),
                  earlier(op, p, s),
                  rocksdb)) {
            return false;
          }
        }
      }
    }
    return true;
  }

  /** True when {@code version} of a store builds from usable files (zips whose SSTs are there). */
  private boolean builds(
      String folder, long version, String id, LongFunction<String> earlier, boolean rocksdb) {
    while (true) {
      StoreChain chain = StoreChain.of(exam.tree(), folder, f -> !unusable.contains(f));
      if (chain.disagreesWith(rocksdb)) return true; // the doctor names it; nothing to roll back
      if (!chain.missing(version, id, earlier, rocksdb).isEmpty()) return false;
      String zip = chain.baseZip(version, id, earlier);
      if (zip == null) return true;
      List<Finding> problems = new ArrayList<>();
      ZipManifest.check(
          exam.fs(), exam.root(), exam.tree(), folder, zip, -1, -1, -1, problems::add);
      if (problems.isEmpty()) return true;
      unusable.add(folder + "/" + zip); // names SSTs that are gone: build from an older one
    }
  }

  private TreeSet<Long> entries(String log) {
    TreeSet<Long> batches = new TreeSet<>();
    for (String name : exam.tree().children(log)) {
      if (name.matches("\\d+")) batches.add(Long.parseLong(name));
    }
    return batches;
  }

  private Map<String, String> conf(long batch) {
    Map<String, String> conf = new HashMap<>();
    JsonNode line = logLine("offsets/" + batch);
    if (line != null) {
      line.path("conf").fields().forEachRemaining(e -> conf.put(e.getKey(), e.getValue().asText()));
    }
    return conf;
  }

  /** Version -> the state checkpoint id its batch's commit records for a store (or null). */
  private LongFunction<String> earlier(long op, int partition, int store) {
    return v -> StoreFolders.uniqueId(ids(v - 1), op, partition, store);
  }

  /** Batch {@code batch}'s state checkpoint ids, as the doctor read its commit (or null). */
  private Map<Long, String[][]> ids(long batch) {
    return exam.facts().idsByBatch().get(batch);
  }

  private JsonNode logLine(String file) {
    try {
      byte[] bytes = CheckpointFiles.readAsSpark(exam.fs(), new Path(exam.root(), file), () -> {});
      return CheckpointLog.parseEntry(bytes);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private void add(String action, String file, String why) {
    steps.putIfAbsent(file, new Step(action, file, why));
  }
}
