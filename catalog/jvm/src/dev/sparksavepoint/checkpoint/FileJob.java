package dev.sparksavepoint.checkpoint;

import java.io.Serializable;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.classic.SparkSession;

/**
 * One Spark job over files of a folder: each task opens its files where they live, through
 * Hadoop's FileSystem API with the session's Hadoop settings (so on executors too, and on
 * {@code hdfs://} or {@code s3a://}), two slices per core at most. What digests, checks and
 * copies of many files run on.
 *
 * <pre>
 *   List&lt;Long&gt; sizes = FileJob.run(spark, "sizes", root, files,
 *       (conf, file, relative) -&gt; file.getFileSystem(conf).getFileStatus(file).getLen());
 * </pre>
 */
public final class FileJob {
  /** What a task does with one file ({@code relative} to the job's folder). */
  public interface PerFile<T> extends Serializable {
    T apply(Configuration conf, Path file, String relative) throws Exception;
  }

  private FileJob() {}

  /** {@code action}'s result for each of {@code files}, in their order. */
  public static <T> List<T> run(
      SparkSession spark, String description, Path root, List<String> files, PerFile<T> action) {
    if (files.isEmpty()) return List.of();
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    TaskConf conf = TaskConf.of(spark);
    String base = root.toString();
    int slices = Math.max(1, Math.min(files.size(), sc.defaultParallelism() * 2));
    CancellableJobs.interruptible(sc.sc());
    sc.setJobDescription(
        "savepoint: " + description + " (" + files.size() + " files in " + base + ")");
    try {
      return sc.parallelize(files, slices)
          .map(f -> action.apply(conf.value(), new Path(new Path(base), f), f))
          .collect();
    } finally {
      sc.setJobDescription(null);
    }
  }
}
