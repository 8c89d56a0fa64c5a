package dev.sparksavepoint.checkpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.runtime.FileStreamSource.FileEntry;
import org.apache.spark.sql.execution.streaming.runtime.FileStreamSourceLog;
import org.apache.spark.sql.execution.streaming.sinks.FileStreamSinkLog;
import org.apache.spark.sql.execution.streaming.sinks.SinkFileStatus;
import scala.Option;
import scala.Tuple2;

/**
 * The file logs of a streaming query, read through Spark's own log classes (which know their
 * compaction): a file source's seen-files log ({@code sources/<i>/} in the checkpoint) and a file
 * sink's log ({@code <output>/_spark_metadata}, beside the output, not in the checkpoint). Only
 * reads: a log folder that does not exist is not created (Spark's log classes would).
 *
 * <p>Example: {@code FileLogs.sourceFiles(spark, ckpt, 0, 3)} for the files source 0 listed in
 * its log entries 0 to 3.
 */
public final class FileLogs {
  /** A file a file source listed in its log entry {@code logOffset} (and so has seen). */
  public record SourceFile(long logOffset, String path, long modificationTimeMs) {}

  /** A file the sink's batch {@code batchId} wrote ({@code action}: add or delete). */
  public record SinkFile(
      long batchId, String path, long size, long modificationTimeMs, String action) {}

  private FileLogs() {}

  /** The log folder of source {@code sourceId}. */
  public static Path sourceLog(Checkpoint ckpt, int sourceId) {
    return new Path(new Path(ckpt.root(), "sources"), Integer.toString(sourceId));
  }

  /**
   * The files of source {@code sourceId}'s log entries up to {@code lastLogOffset}, in log order;
   * empty when it has no log.
   */
  public static List<SourceFile> sourceFiles(
      SparkSession spark, Checkpoint ckpt, int sourceId, long lastLogOffset) throws IOException {
    Path log = sourceLog(ckpt, sourceId);
    List<SourceFile> files = new ArrayList<>();
    if (lastLogOffset < 0 || !ckpt.fileSystem().exists(log)) return files;
    FileStreamSourceLog reader =
        new FileStreamSourceLog(FileStreamSourceLog.VERSION(), spark, log.toString());
    Tuple2<Object, FileEntry[]>[] entries =
        reader.get(Option.empty(), Option.apply((Object) lastLogOffset));
    for (Tuple2<Object, FileEntry[]> entry : entries) {
      for (FileEntry f : entry._2()) {
        files.add(new SourceFile((Long) entry._1(), f.path(), f.timestamp()));
      }
    }
    return files;
  }

  /**
   * Adds an entry listing {@code files} (path and modification time) to the log of file source
   * {@code sourceId}, after its last one, through Spark's own log class (a compacted entry when
   * the index is due for one); returns the file written. A source reads the files of a new
   * entry in its next batch.
   *
   * @throws IOException when the entry could not be written, or appeared meanwhile
   */
  public static Path addSourceEntry(
      SparkSession spark, Checkpoint ckpt, int sourceId, List<SourceFile> files)
      throws IOException {
    FileStreamSourceLog log =
        new FileStreamSourceLog(
            FileStreamSourceLog.VERSION(), spark, sourceLog(ckpt, sourceId).toString());
    Option<Object> latest = log.getLatestBatchId();
    long index = latest.isEmpty() ? 0 : (Long) latest.get() + 1;
    FileEntry[] entries = new FileEntry[files.size()];
    for (int i = 0; i < entries.length; i++) {
      entries[i] = new FileEntry(files.get(i).path(), files.get(i).modificationTimeMs(), index);
    }
    if (!log.add(index, entries)) {
      throw new IOException(
          "entry " + index + " of " + sourceLog(ckpt, sourceId) + " appeared meanwhile");
    }
    return log.batchIdToPath(index);
  }

  /**
   * The start time the rate source {@code sourceId} keeps in {@code sources/<i>/0} ({@code v1}
   * and a number), or -1 when it keeps none: the source is no rate source.
   */
  public static long rateStartMs(Checkpoint checkpoint, int sourceId) {
    Path file = new Path(sourceLog(checkpoint, sourceId), "0");
    try {
      if (!checkpoint.fileSystem().exists(file)) return -1;
      List<String> lines =
          new String(CheckpointFiles.readAll(checkpoint.fileSystem(), file), StandardCharsets.UTF_8)
              .lines()
              .toList();
      return lines.size() == 2 && lines.get(0).matches("v\\d+") && lines.get(1).matches("\\d+")
          ? Long.parseLong(lines.get(1))
          : -1;
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  /** The sink log folder of the output folder {@code output}. */
  public static Path sinkLog(String output) {
    return new Path(output, "_spark_metadata");
  }

  /**
   * What each batch up to {@code lastBatch} of the file sink writing to {@code output} added or
   * deleted, in batch order. A compacted log entry holds every file still valid up to it: its
   * files not listed by an earlier entry still readable are its batch's.
   *
   * @throws java.io.FileNotFoundException when {@code output} has no sink log
   */
  public static List<SinkFile> sinkFiles(SparkSession spark, String output, long lastBatch)
      throws IOException {
    Path log = sinkLog(output);
    FileSystem fs = log.getFileSystem(spark.sessionState().newHadoopConf());
    if (!fs.exists(log)) {
      throw new java.io.FileNotFoundException(fs.makeQualified(log) + " does not exist");
    }
    FileStreamSinkLog reader =
        new FileStreamSinkLog(FileStreamSinkLog.VERSION(), spark, log.toString(), Option.empty());
    List<SinkFile> files = new ArrayList<>();
    Option<Object> latest = reader.getLatestBatchId();
    if (latest.isEmpty()) return files;
    long last = Math.min(lastBatch, (Long) latest.get());
    Set<String> seen = new HashSet<>();
    for (Tuple2<Object, SinkFileStatus[]> entry :
        reader.get(Option.empty(), Option.apply((Object) last))) {
      long batchId = (Long) entry._1();
      for (SinkFileStatus f : entry._2()) {
        if (!seen.add(f.path() + "\n" + f.action())) continue;
        files.add(new SinkFile(batchId, f.path(), f.size(), f.modificationTime(), f.action()));
      }
    }
    return files;
  }
}
