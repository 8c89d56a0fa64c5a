package dev.sparksavepoint.actions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.FileDigests;
import dev.sparksavepoint.checkpoint.FileJob;
import dev.sparksavepoint.commit.QueryActivity;
import dev.sparksavepoint.doctor.Check;
import dev.sparksavepoint.doctor.Doctor;
import dev.sparksavepoint.doctor.Finding;
import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Moves or copies a whole checkpoint, every batch it keeps, to another folder or file system
 * (local, {@code hdfs://}, {@code s3a://}) and rewrites the absolute paths it holds, keeping
 * the query id, so that the query restarted at the new place continues without reprocessing:
 *
 * <ul>
 *   <li>operator metadata v2 names transformWithState's schema files by absolute path:
 *       re-pointed into the new folder;
 *   <li>file-source logs ({@code sources/<n>/<batch>}) name the input files read: re-pointed
 *       for each {@code --source-path OLD=NEW} (the input moved too);
 *   <li>a file sink's {@code _spark_metadata} names the files written: for each
 *       {@code --sink-path OLD=NEW} the sink's folder is copied to NEW and its log re-pointed.
 * </ul>
 *
 * Files are copied by a Spark job, byte for byte, except those rewritten. The target is claimed
 * first ({@link NewFolder}); the commit log is copied last, entry by entry with its times, so a
 * copy killed before it is no checkpoint a query continues ({@code recover} empties it). Then
 * the doctor verifies the target; with {@code move}, only a target without errors lets the
 * source (and the sinks' old folders) be removed. Refused while the source's query may run.
 */
public final class RelocateCheckpoint {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern OPERATOR_METADATA_V2 =
      Pattern.compile("state/\\d+/_metadata/v2/\\d+");
  private static final Pattern SOURCE_LOG = Pattern.compile("sources/\\d+/\\d+(\\.compact)?");
  private static final Pattern SINK_LOG = Pattern.compile("_spark_metadata/\\d+(\\.compact)?");

  /** A folder that moved: every recorded path under {@code from} now lives under {@code to}. */
  public record Moved(String from, String to) {
    /** Parses {@code OLD=NEW}. */
    public static Moved parse(String item) {
      int eq = item.indexOf('=');
      if (eq <= 0 || eq == item.length() - 1) {
        throw Errors.analysis(
            "SAVEPOINT_BAD_ARGUMENTS",
            "A moved folder is given as OLD=NEW (e.g. /data/out=hdfs://nn/data/out), not '"
                + item
                + "'.");
      }
      return new Moved(item.substring(0, eq).trim(), item.substring(eq + 1).trim());
    }
  }

  private RelocateCheckpoint() {}

  /**
   * Relocates checkpoint {@code source} to the new folder {@code target}; returns one line: what
   * was copied, and the doctor's verdict on the target.
   */
  public static String run(
      SparkSession spark,
      String source,
      String target,
      boolean move,
      List<Moved> sinks,
      List<Moved> sources,
      boolean force) {
    Configuration conf = spark.sessionState().newHadoopConf();
    Checkpoint from = Checkpoint.open(source, conf);
    QueryActivity.check(spark, from, "-", "-", force);
    byte[] metadata;
    try {
      metadata = CheckpointFiles.readAll(from.fileSystem(), new Path(from.root(), "metadata"));
    } catch (IOException e) {
      throw Errors.io(source, e);
    }
    String what = "relocate '" + source + "'";
    checkSinks(sinks, conf);
    NewFolder folder = NewFolder.claim(target, metadata, conf, what);
    List<NewFolder> sinkFolders = new ArrayList<>();
    long bytes;
    try {
      String toRoot = folder.fs().makeQualified(folder.root()).toString();
      List<Moved> resolvedSources = qualified(sources, conf);
      List<String> files = FileDigests.list(from.fileSystem(), from.root(), "metadata");
      List<String> plain = new ArrayList<>();
      List<String> rewritten = new ArrayList<>();
      List<String> commits = new ArrayList<>();
      for (String file : files) {
        if (file.startsWith(CheckpointLog.COMMITS + "/")) commits.add(file);
        else if (file.equals(Checkpoint.CLAIM_FILE)) continue;
        else if (OPERATOR_METADATA_V2.matcher(file).matches()) rewritten.add(file);
        else if (!resolvedSources.isEmpty() && SOURCE_LOG.matcher(file).matches()) {
          rewritten.add(file);
        } else plain.add(file);
      }
      bytes = copy(spark, from.root(), folder.root(), plain);
      for (String file : rewritten) {
        byte[] text = CheckpointFiles.readAll(raw(from.fileSystem()), new Path(from.root(), file));
        byte[] out =
            file.startsWith("sources/")
                ? repointed(text, resolvedSources)
                : CheckpointCopy.repointedSchemas(text, toRoot + "/" + schemaFolder(file));
        folder.write(new Path(folder.root(), file), out);
        bytes += out.length;
      }
      for (Moved sink : qualified(sinks, conf)) sinkFolders.add(copySink(spark, sink, conf));
      keepLogTimes(from, folder, files);
      folder.identify();
      for (String file : sorted(commits)) {
        Path to = new Path(folder.root(), file);
        CheckpointFiles.writeNew(
            to, CheckpointFiles.readAll(raw(from.fileSystem()), new Path(from.root(), file)), conf);
        CheckpointCopy.keepTime(from.fileSystem(), new Path(from.root(), file), folder.fs(), to);
      }
    } catch (Exception e) { // AnalysisException too: Errors throws it unchecked
      folder.remove();
      sinkFolders.forEach(NewFolder::remove);
      if (e instanceof IOException io) throw Errors.writeFailed(target, what, io);
      throw Errors.rethrow(e);
    }
    List<Finding> findings = Doctor.verify(spark, target);
    long errors = findings.stream().filter(f -> f.severity() == Check.Severity.ERROR).count();
    String verdict = errors == 0 ? "the doctor finds no error there" : errors + " error(s) there";
    if (move && errors == 0) removeSources(from, sinks, conf);
    return (move && errors == 0 ? "moved '" : "copied '")
        + source
        + "' to '"
        + target
        + "' ("
        + bytes
        + " bytes; query id "
        + from.queryId()
        + " kept"
        + (sinks.isEmpty() ? "" : ", " + sinks.size() + " sink folder(s) copied")
        + "): "
        + verdict
        + (move && errors > 0 ? "; the source was kept" : "")
        + ".";
  }

  /** Copies {@code files} (relative paths) from {@code from} to {@code to} in a Spark job. */
  private static long copy(SparkSession spark, Path from, Path to, List<String> files) {
    String dst = to.toString();
    List<Long> sizes =
        FileJob.run(
            spark,
            "relocate to " + dst,
            from,
            files,
            (conf, in, f) -> {
              Path out = new Path(new Path(dst), f);
              FileSystem dstFs = out.getFileSystem(conf);
              dstFs.mkdirs(out.getParent());
              return FileDigests.copy(raw(in.getFileSystem(conf)), in, dstFs, out, f).bytes();
            });
    return sizes.stream().mapToLong(Long::longValue).sum();
  }

  /** Copies a sink's folder to its new place, its metadata log re-pointed there. */
  private static NewFolder copySink(SparkSession spark, Moved sink, Configuration conf)
      throws IOException {
    Path from = new Path(sink.from());
    FileSystem src = from.getFileSystem(conf);
    NewFolder folder = emptyFolder(sink.to(), conf, "copy the sink '" + sink.from() + "'");
    List<String> plain = new ArrayList<>();
    List<String> logs = new ArrayList<>();
    for (String file : FileDigests.list(src, from, null)) {
      (SINK_LOG.matcher(file).matches() ? logs : plain).add(file);
    }
    copy(spark, from, folder.root(), plain);
    List<Moved> moved = List.of(sink);
    for (String file : logs) {
      byte[] text = CheckpointFiles.readAll(raw(src), new Path(from, file));
      folder.write(new Path(folder.root(), file), repointed(text, moved));
    }
    return folder;
  }

  /** Refuses, before anything is written, a sink that is not one or whose new place is taken. */
  private static void checkSinks(List<Moved> sinks, Configuration conf) {
    try {
      for (Moved sink : sinks) {
        Path from = new Path(sink.from());
        if (!from.getFileSystem(conf).exists(new Path(from, "_spark_metadata"))) {
          throw Errors.analysis(
              "SAVEPOINT_NO_SINK_LOG",
              "--sink-path "
                  + sink.from()
                  + "=...: '"
                  + sink.from()
                  + "' is not a file sink's folder (it has no _spark_metadata/); nothing was"
                  + " written.");
        }
        Path to = new Path(sink.to());
        FileSystem fs = to.getFileSystem(conf);
        if (fs.exists(to)
            && (!fs.getFileStatus(to).isDirectory() || fs.listStatus(to).length > 0)) {
          throw Errors.targetInUse(sink.to(), "copy the sink '" + sink.from() + "'");
        }
      }
    } catch (IOException e) {
      throw Errors.io(sinks.get(0).from(), e);
    }
  }

  /** {@code target}, made as a folder that must not exist or be empty (no claim file). */
  private static NewFolder emptyFolder(String target, Configuration conf, String what)
      throws IOException {
    Path root = new Path(target);
    FileSystem fs = root.getFileSystem(conf);
    boolean existed = fs.exists(root);
    if (existed && (!fs.getFileStatus(root).isDirectory() || fs.listStatus(root).length > 0)) {
      throw Errors.targetInUse(target, what);
    }
    fs.mkdirs(root);
    return new NewFolder(root, fs, existed, null, conf);
  }

  /**
   * A log whose lines after the version line are JSON objects with a {@code path} (a file
   * source's or a file sink's), each path under a moved folder re-pointed.
   */
  static byte[] repointed(byte[] log, List<Moved> moved) throws IOException {
    String[] lines = new String(log, StandardCharsets.UTF_8).split("\n", -1);
    for (int i = 1; i < lines.length; i++) {
      if (lines[i].isBlank()) continue;
      JsonNode entry = JSON.readTree(lines[i]);
      if (!(entry instanceof ObjectNode object) || !entry.path("path").isTextual()) continue;
      String path = entry.path("path").asText();
      String normal = new Path(path).toString();
      for (Moved m : moved) {
        if (normal.equals(m.from()) || normal.startsWith(m.from() + "/")) {
          object.put(
              "path", new Path(m.to() + normal.substring(m.from().length())).toUri().toString());
          lines[i] = JSON.writeValueAsString(object);
          break;
        }
      }
    }
    return String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
  }

  /** {@code moved} with both sides qualified by their file systems ({@code file:/data/out}). */
  private static List<Moved> qualified(List<Moved> moved, Configuration conf) throws IOException {
    List<Moved> out = new ArrayList<>();
    for (Moved m : moved) out.add(new Moved(qualify(m.from(), conf), qualify(m.to(), conf)));
    return out;
  }

  private static String qualify(String path, Configuration conf) throws IOException {
    Path p = new Path(path);
    return p.getFileSystem(conf).makeQualified(p).toString().replaceAll("/+$", "");
  }

  /** {@code state/3/_stateSchema/} of the operator folder a metadata file belongs to. */
  private static String schemaFolder(String metadataFile) {
    String[] parts = metadataFile.split("/");
    return "state/" + parts[1] + "/_stateSchema/";
  }

  /** The offsets entries keep their times: a log entry's time is when its batch was planned. */
  private static void keepLogTimes(Checkpoint from, NewFolder folder, List<String> files) {
    for (String file : files) {
      if (file.startsWith(CheckpointLog.OFFSETS + "/")) {
        CheckpointCopy.keepTime(
            from.fileSystem(),
            new Path(from.root(), file),
            folder.fs(),
            new Path(folder.root(), file));
      }
    }
  }

  private static List<String> sorted(List<String> commits) {
    List<String> out = new ArrayList<>(commits);
    out.sort(
        (a, b) -> {
          String x = a.substring(a.indexOf('/') + 1);
          String y = b.substring(b.indexOf('/') + 1);
          boolean nx = x.matches("\\d+");
          boolean ny = y.matches("\\d+");
          if (nx && ny) return Long.compare(Long.parseLong(x), Long.parseLong(y));
          return nx ? -1 : ny ? 1 : x.compareTo(y);
        });
    return out;
  }

  private static void removeSources(Checkpoint from, List<Moved> sinks, Configuration conf) {
    try {
      from.fileSystem().delete(from.root(), true);
      for (Moved sink : sinks) {
        Path old = new Path(sink.from());
        old.getFileSystem(conf).delete(old, true);
      }
    } catch (IOException e) {
      throw Errors.writeFailed(from.location(), "remove the relocated checkpoint", e);
    }
  }

  /** The file system without Hadoop's checksum check: a stale checksum file moves as it is. */
  private static FileSystem raw(FileSystem fs) {
    return fs instanceof ChecksumFileSystem c ? c.getRawFileSystem() : fs;
  }
}
