package dev.sparksavepoint.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.commit.QueryActivity;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Applies a {@link RepairPlan} as one undoable change. First every file it will change is kept,
 * byte for byte with its Hadoop checksum file, in {@code _savepoint/repairs/<id>/files/}. Then
 * {@code plan.json} is written: the backup is whole (it also names the files the steps create).
 * Then the steps run, and {@code applied} marks the end. {@link #undo} writes the kept bytes back,
 * removes the created files and the backup, which puts the checkpoint back as it was (an
 * interrupted repair too). Spark never reads {@code _savepoint/}.
 * Refused while the query may run, and while an earlier repair has not finished.
 */
public final class Repair {
  static final String FOLDER = "_savepoint/repairs";
  private static final String PLAN = "plan.json";
  private static final String APPLIED = "applied";
  private static final String FILES = "files";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMddHHmmssSSS").withZone(ZoneOffset.UTC);

  private Repair() {}

  /**
   * Applies {@code plan} to its checkpoint; returns where the backup went.
   *
   * @param force also when the checkpoint's query looks alive
   */
  public static String apply(SparkSession spark, RepairPlan.Plan plan, boolean force) {
    String location = plan.location();
    Configuration conf = spark.sessionState().newHadoopConf();
    Path root = new Path(location);
    checkStopped(spark, location, conf, force);
    try {
      FileSystem fs = root.getFileSystem(conf);
      String unfinished = unfinished(fs, root);
      if (unfinished != null) {
        throw Errors.analysis(
            "SAVEPOINT_REPAIR_REFUSED",
            "Cannot repair checkpoint '"
                + location
                + "': the repair kept in "
                + unfinished
                + " did not finish. Run spark-savepoint repair "
                + location
                + " --undo first; nothing was changed.");
      }
      boolean hadToolFolder = fs.exists(new Path(root, "_savepoint"));
      boolean hadRepairs = fs.exists(new Path(root, FOLDER));
      String id = STAMP.format(Instant.now()) + "-" + UUID.randomUUID().toString().substring(0, 8);
      Path backup = new Path(new Path(root, FOLDER), id);
      List<String> kept = keep(fs, root, backup, plan.steps());
      ObjectNode record = JSON.createObjectNode();
      record.put("created_at", Instant.now().toString());
      record.put("tool_folder_existed", hadToolFolder);
      record.put("repairs_folder_existed", hadRepairs);
      record.put("kept_batch", plan.keptBatch());
      record.put("last_committed", plan.lastCommitted());
      ArrayNode steps = record.putArray("steps");
      for (RepairPlan.Step step : plan.steps()) {
        steps
            .addObject()
            .put("action", step.action())
            .put("file", step.file())
            .put("why", step.why());
      }
      record.putPOJO("kept", kept);
      record.putPOJO("created", created(fs, root, plan.steps()));
      CheckpointFiles.writeNew(new Path(backup, PLAN), CheckpointFiles.prettyJson(record), conf);
      for (RepairPlan.Step step : plan.steps()) run(fs, new Path(root, step.file()), step);
      CheckpointFiles.writeNew(new Path(backup, APPLIED), new byte[0], conf);
      return FOLDER + "/" + id;
    } catch (IOException e) {
      throw Errors.writeFailed(location, "repair the checkpoint", e);
    }
  }

  /**
   * Applies {@code plan} unless {@code dryRun}; its rows (action, file, why): one per step, one
   * per finding left for hands ({@code by hand}), and a last {@code summary}.
   */
  public static List<Object[]> rows(
      SparkSession spark, RepairPlan.Plan plan, boolean dryRun, boolean force) {
    String backup = dryRun || plan.steps().isEmpty() ? null : apply(spark, plan, force);
    List<Object[]> rows = new ArrayList<>();
    for (RepairPlan.Step step : plan.steps()) {
      rows.add(new Object[] {step.action(), step.file(), step.why()});
    }
    for (Finding f : plan.byHand()) {
      rows.add(new Object[] {"by hand", f.file(), f.check() + ": " + f.message() + " " + f.fix()});
    }
    String summary =
        plan.summary()
            + (dryRun
                ? " (dry run: nothing was changed)"
                : backup == null
                    ? ""
                    : "; what it changed is kept in " + backup + " (undo: repair --undo)");
    rows.add(new Object[] {"summary", null, summary});
    return rows;
  }

  /**
   * Puts the checkpoint back as it was before its last repair (applied or interrupted) and
   * removes that repair's backup; returns one line.
   */
  public static String undo(SparkSession spark, String location, boolean force) {
    Configuration conf = spark.sessionState().newHadoopConf();
    Path root = new Path(location);
    checkStopped(spark, location, conf, force);
    try {
      FileSystem fs = root.getFileSystem(conf);
      Path backup = newest(fs, root);
      if (backup == null) {
        throw Errors.analysis(
            "SAVEPOINT_REPAIR_REFUSED",
            "Cannot undo a repair of checkpoint '"
                + location
                + "': it has none ("
                + FOLDER
                + "/ holds no repair); nothing was changed.");
      }
      JsonNode record = JSON.readTree(CheckpointFiles.readAll(fs, new Path(backup, PLAN)));
      FileSystem raw = raw(fs);
      int restored = 0;
      for (JsonNode file : record.path("kept")) {
        Path from = new Path(new Path(backup, FILES), file.asText());
        Path to = new Path(root, file.asText());
        raw.mkdirs(to.getParent());
        write(raw, to, CheckpointFiles.readAll(raw, from));
        restored++;
      }
      for (JsonNode file : record.path("created")) {
        fs.delete(new Path(root, file.asText()), true); // with its checksum file
      }
      fs.delete(backup, true);
      if (!record.path("repairs_folder_existed").asBoolean(true)) {
        deleteIfEmpty(fs, new Path(root, FOLDER));
      }
      if (!record.path("tool_folder_existed").asBoolean(true)) {
        deleteIfEmpty(fs, new Path(root, "_savepoint"));
      }
      return "undid the repair "
          + backup.getName()
          + " of '"
          + location
          + "': "
          + restored
          + " file(s) written back as they were.";
    } catch (IOException e) {
      throw Errors.writeFailed(location, "undo the repair", e);
    }
  }

  /** Keeps every file the steps change (and its Hadoop checksum file); their relative paths. */
  private static List<String> keep(
      FileSystem fs, Path root, Path backup, List<RepairPlan.Step> steps) throws IOException {
    FileSystem raw = raw(fs);
    List<String> kept = new ArrayList<>();
    for (RepairPlan.Step step : steps) {
      for (String file : List.of(step.file(), FileChecksums.sidecarOf(step.file()))) {
        Path from = new Path(root, file);
        if (kept.contains(file) || !raw.exists(from)) continue;
        Path to = new Path(new Path(backup, FILES), file);
        raw.mkdirs(to.getParent());
        write(raw, to, CheckpointFiles.readAll(raw, from));
        kept.add(file);
      }
    }
    return kept;
  }

  /**
   * What the steps create: each written file that does not exist yet, or the outermost folder
   * of it that does not (relative paths); undo removes them.
   */
  private static List<String> created(FileSystem fs, Path root, List<RepairPlan.Step> steps)
      throws IOException {
    List<String> created = new ArrayList<>();
    for (RepairPlan.Step step : steps) {
      String file = step.file();
      if (!step.action().equals(RepairPlan.WRITE) || fs.exists(new Path(root, file))) continue;
      while (file.contains("/")
          && !fs.exists(new Path(root, file.substring(0, file.lastIndexOf('/'))))) {
        file = file.substring(0, file.lastIndexOf('/'));
      }
      if (!created.contains(file)) created.add(file);
    }
    return created;
  }

  private static void run(FileSystem fs, Path file, RepairPlan.Step step) throws IOException {
    String action = step.action();
    if (action.equals(RepairPlan.WRITE)) {
      write(fs, file, step.content());
    } else if (action.equals(RepairPlan.REMOVE)) {
      fs.delete(file, false); // a checksum file system removes the checksum file with it
    } else if (action.equals(RepairPlan.REWRITE_CHECKSUM)) {
      byte[] bytes = CheckpointFiles.readAll(raw(fs), file);
      try (OutputStream out = fs.create(file, true)) {
        out.write(bytes); // written anew, with a checksum file that matches
      }
    } else {
      throw new IllegalArgumentException("unknown repair step " + action);
    }
  }

  /** The backup of a repair that did not finish, relative to the checkpoint, or null. */
  private static String unfinished(FileSystem fs, Path root) throws IOException {
    Path folder = new Path(root, FOLDER);
    if (!fs.exists(folder)) return null;
    for (FileStatus repair : fs.listStatus(folder)) {
      if (repair.isDirectory() && !fs.exists(new Path(repair.getPath(), APPLIED))) {
        return FOLDER + "/" + repair.getPath().getName();
      }
    }
    return null;
  }

  /** The newest repair's backup folder (with its plan), or null. */
  private static Path newest(FileSystem fs, Path root) throws IOException {
    Path folder = new Path(root, FOLDER);
    if (!fs.exists(folder)) return null;
    Path newest = null;
    for (FileStatus repair : fs.listStatus(folder)) {
      Path path = repair.getPath();
      if (repair.isDirectory()
          && fs.exists(new Path(path, PLAN))
          && (newest == null || path.getName().compareTo(newest.getName()) > 0)) {
        newest = path;
      }
    }
    return newest;
  }

  private static void checkStopped(
      SparkSession spark, String location, Configuration conf, boolean force) {
    Checkpoint ckpt;
    try {
      ckpt = Checkpoint.open(location, conf);
    } catch (Exception e) { // AnalysisException too: a checkpoint too damaged to open has no
      return; // query that runs on it
    }
    QueryActivity.check(spark, ckpt, "-", "-", force);
  }

  private static void deleteIfEmpty(FileSystem fs, Path folder) throws IOException {
    if (fs.exists(folder) && fs.listStatus(folder).length == 0) fs.delete(folder, false);
  }

  private static void write(FileSystem fs, Path file, byte[] bytes) throws IOException {
    try (OutputStream out = fs.create(file, true)) {
      out.write(bytes);
    }
  }

  /** The file system without Hadoop's checksums: files are kept and put back byte for byte. */
  private static FileSystem raw(FileSystem fs) {
    return fs instanceof ChecksumFileSystem c ? c.getRawFileSystem() : fs;
  }
}
