package dev.sparksavepoint.actions;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Size and SHA-256 of files under a folder, computed by a Spark job (files read in parallel
 * where they live, through Hadoop's FileSystem API): what a savepoint's manifest records and a
 * restore verifies.
 */
final class FileDigests {
  /** One file: its path relative to the folder, its size and SHA-256 (hex). */
  record Digest(String path, long bytes, String sha256) implements Serializable {}

  private FileDigests() {}

  /** Every file under {@code root} except {@code skip} (a relative path), sorted by path. */
  static List<String> list(FileSystem fs, Path root, String skip) throws IOException {
    String base = fs.makeQualified(root).toUri().getPath();
    List<String> files = new ArrayList<>();
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(root, true);
    while (it.hasNext()) {
      String path = it.next().getPath().toUri().getPath();
      String relative = path.substring(base.length() + 1);
      if (!relative.equals(skip)) files.add(relative);
    }
    files.sort(null);
    return files;
  }

  /** The digests of {@code files} (relative to {@code root}), in their order. */
  static List<Digest> of(SparkSession spark, Path root, List<String> files) {
    if (files.isEmpty()) return List.of();
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    SerializableConfiguration conf =
        new SerializableConfiguration(spark.sessionState().newHadoopConf());
    String base = root.toString();
    int slices = Math.max(1, Math.min(files.size(), sc.defaultParallelism() * 2));
    sc.setJobDescription("savepoint: checksums of " + files.size() + " files in " + base);
    try {
      return sc.parallelize(files, slices).map(f -> digest(new Path(base), f, conf)).collect();
    } finally {
      sc.setJobDescription(null);
    }
  }

  private static Digest digest(Path root, String relative, SerializableConfiguration conf)
      throws IOException {
    Path file = new Path(root, relative);
    FileSystem fs = file.getFileSystem(conf.value());
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    long bytes = 0;
    byte[] buffer = new byte[1 << 16];
    try (InputStream in = fs.open(file)) {
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        sha.update(buffer, 0, read);
        bytes += read;
      }
    }
    return new Digest(relative, bytes, HexFormat.of().formatHex(sha.digest()));
  }
}
