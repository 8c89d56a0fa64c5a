package dev.sparksavepoint.logedit;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.FileLogs;
import dev.sparksavepoint.checkpoint.FileLogs.SourceFile;
import dev.sparksavepoint.commit.CheckpointCommit;
import dev.sparksavepoint.commit.EditReport;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.store.StoreBatch;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Makes a file source read files again: rows deleted from {@code sources.files} (files the
 * source has seen) are listed once more in a new entry of the source's log, after its last,
 * and batch N+1 commits with batch N's positions and state. The restarted query's next batch
 * reads the new entry: the deleted files, once each, added to the intact state. A file source
 * never forgets a file it has listed (its log is append-only and compacted), so "forgetting"
 * is reading again; the rows then show the files at both entries. The same transaction as
 * every write; the log entry is written last before commits/N+1, and a failed edit removes it.
 */
public final class SeenFilesEdit {
  static final String TABLE = "sources.files";

  private SeenFilesEdit() {}

  /**
   * Commits the rows of {@code before} (the table read at batch {@code readBatch}: {@code
   * source_id, log_offset, path, modification_time}) missing from {@code after} as files to
   * read again.
   */
  public static EditReport apply(
      SparkSession spark,
      String location,
      long readBatch,
      InternalRow[] before,
      List<InternalRow> after) {
    Configuration conf = spark.sessionState().newHadoopConf();
    Checkpoint ckpt = Checkpoint.open(location, conf);
    long last = LogEdits.lastBatch(spark, ckpt, "sources", "files", readBatch);
    Map<Integer, List<SourceFile>> again = deleted(ckpt, before, after, conf);
    if (again.isEmpty()) return EditReport.record(new EditReport(ckpt.location(), TABLE, -1, 0, 0));
    long batch = CheckpointLog.nextBatch(last);
    StoreBatch plan = StoreBatch.carryOver(spark, ckpt, last);
    CheckpointCommit tx = CheckpointCommit.begin(plan, "read files again in batch " + batch, false);
    int files = 0;
    try {
      List<PartitionCommit> commits = LogEdits.carriedOver(plan, batch);
      for (Map.Entry<Integer, List<SourceFile>> source : again.entrySet()) {
        tx.wrote(addEntry(spark, ckpt, source.getKey(), source.getValue()));
        files += source.getValue().size();
      }
      tx.finish(commits);
    } catch (RuntimeException e) {
      tx.rollback();
      throw e;
    }
    return EditReport.record(
        new EditReport(
            ckpt.location(),
            TABLE,
            batch,
            0,
            files,
            "savepoint: "
                + files
                + (files == 1 ? " file" : " files")
                + " will be read again by"
                + " the next batch of the restarted query, into its current state"));
  }

  private static Path addEntry(
      SparkSession spark, Checkpoint ckpt, int sourceId, List<SourceFile> files) {
    try {
      return FileLogs.addSourceEntry(spark, ckpt, sourceId, files);
    } catch (IOException e) {
      throw Errors.writeFailed(ckpt.location(), "add an entry to sources/" + sourceId, e);
    }
  }

  /** The deleted rows' files per source (each path once), validated. */
  static Map<Integer, List<SourceFile>> deleted(
      Checkpoint ckpt, InternalRow[] before, List<InternalRow> after, Configuration conf) {
    Map<String, Integer> remaining = new HashMap<>();
    for (InternalRow row : after) remaining.merge(key(row), 1, Integer::sum);
    Map<Integer, Map<String, SourceFile>> again = new TreeMap<>();
    for (InternalRow row : before) {
      String key = key(row);
      Integer left = remaining.get(key);
      if (left != null) {
        if (left == 1) remaining.remove(key);
        else remaining.put(key, left - 1);
        continue;
      }
      String path = row.getUTF8String(2).toString();
      long modified = row.isNullAt(3) ? 0 : Math.floorDiv(row.getLong(3), 1000);
      again
          .computeIfAbsent(row.getInt(0), s -> new LinkedHashMap<>())
          .putIfAbsent(path, new SourceFile(row.getLong(1), path, modified));
    }
    if (!remaining.isEmpty()) {
      throw refused(
          ckpt,
          Integer.parseInt(remaining.keySet().iterator().next().split("\n")[0]),
          "rows of sources.files can only be deleted, to read those files again");
    }
    Map<Integer, List<SourceFile>> result = new TreeMap<>();
    for (Map.Entry<Integer, Map<String, SourceFile>> source : again.entrySet()) {
      for (SourceFile f : source.getValue().values()) checkReadable(ckpt, source.getKey(), f, conf);
      result.put(source.getKey(), new ArrayList<>(source.getValue().values()));
    }
    return result;
  }

  private static void checkReadable(
      Checkpoint ckpt, int sourceId, SourceFile file, Configuration conf) {
    try {
      Path path = new Path(new URI(file.path()));
      if (!path.getFileSystem(conf).exists(path)) {
        throw refused(
            ckpt, sourceId, "file " + file.path() + " is gone and cannot be read" + " again");
      }
    } catch (IOException | URISyntaxException e) {
      throw refused(ckpt, sourceId, "file " + file.path() + " cannot be reached (" + e + ")");
    }
  }

  private static String key(InternalRow row) {
    return row.getInt(0) + "\n" + row.getLong(1) + "\n" + row.getUTF8String(2);
  }

  private static RuntimeException refused(Checkpoint ckpt, int sourceId, String why) {
    return Errors.badSourcePosition(ckpt.location(), "source " + sourceId, why);
  }
}
