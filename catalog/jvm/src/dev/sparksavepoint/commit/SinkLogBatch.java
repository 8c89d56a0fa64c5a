package dev.sparksavepoint.commit;

import dev.sparksavepoint.checkpoint.FileLogs;
import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.streaming.sinks.FileStreamSinkLog;
import org.apache.spark.sql.execution.streaming.sinks.SinkFileStatus;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Keeps a file sink's log in step with the batches edits commit. A file sink logs every batch
 * in {@code <output>/_spark_metadata}, and Spark's log needs every entry since its last
 * compaction: readers of the output fail on a missing one ("3 doesn't exist") and so does the
 * query when it next compacts its log. A batch an edit commits wrote no output, so it gets an
 * empty entry, added through Spark's own {@link FileStreamSinkLog} (which writes a compacted
 * entry when the batch is due for one). The checkpoint does not say where its sink writes: the
 * output folder is the {@code sink} option of a catalog attached to the checkpoint.
 */
final class SinkLogBatch {
  private SinkLogBatch() {}

  /**
   * Adds an empty entry for {@code batch} to the sink log of the query of {@code checkpoint},
   * when a catalog of the active session names its output; returns the file written, or null
   * when no sink is known or the log has the batch already.
   */
  static Path add(String checkpoint, long batch, Configuration hadoopConf) throws IOException {
    SparkSession spark = SparkSession.active();
    String output = outputOf(spark, checkpoint, hadoopConf);
    if (output == null) return null;
    Path folder = FileLogs.sinkLog(output);
    if (!folder.getFileSystem(hadoopConf).exists(folder)) return null;
    FileStreamSinkLog log =
        new FileStreamSinkLog(
            FileStreamSinkLog.VERSION(), spark, folder.toString(), Option.empty());
    return log.add(batch, new SinkFileStatus[0]) ? log.batchIdToPath(batch) : null;
  }

  /**
   * The {@code sink} option of a catalog of {@code spark} whose {@code path} is
   * {@code checkpoint} (options of the session conf: this layer does not know the catalog
   * class), or null.
   */
  static String outputOf(SparkSession spark, String checkpoint, Configuration hadoopConf)
      throws IOException {
    Map<String, String> conf =
        CollectionConverters.asJava(spark.sessionState().conf().getAllConfs());
    Path wanted = qualified(checkpoint, hadoopConf);
    for (Map.Entry<String, String> e : conf.entrySet()) {
      String key = e.getKey();
      if (!key.startsWith("spark.sql.catalog.") || key.indexOf('.', 18) >= 0) continue;
      String path = conf.get(key + ".path");
      String sink = conf.get(key + ".sink");
      if (path != null
          && !path.isBlank()
          && sink != null
          && !sink.isBlank()
          && qualified(path, hadoopConf).equals(wanted)) {
        return sink;
      }
    }
    return null;
  }

  private static Path qualified(String location, Configuration hadoopConf) throws IOException {
    Path path = new Path(location);
    FileSystem fs = path.getFileSystem(hadoopConf);
    return fs.makeQualified(path);
  }
}
