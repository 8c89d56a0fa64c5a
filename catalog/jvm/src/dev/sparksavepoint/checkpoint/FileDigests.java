package dev.sparksavepoint.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Size and SHA-256 of files under a folder, through Hadoop's FileSystem API: what a savepoint's
 * manifest records and a restore verifies. Computed by a Spark job (files read in parallel
 * where they live), one file at a time, or while a file is copied.
 */
public final class FileDigests {
  private static final int BUFFER = 1 << 16;

  /** One file: its path relative to the folder, its size and SHA-256 (hex). */
  public record Digest(String path, long bytes, String sha256) implements Serializable {}

  private FileDigests() {}

  /**
   * Every file under {@code root} except {@code skip} (a relative path), sorted by path. Walks
   * with {@code listStatus}: {@code listFiles} builds located statuses, whose permissions cost a
   * forked {@code ls} per file on a local disk without Hadoop's native library.
   */
  public static List<String> list(FileSystem fs, Path root, String skip) throws IOException {
    List<FileStatus> files = new ArrayList<>();
    FileListing.walk(fs, root, files);
    List<String> relative = new ArrayList<>();
    for (FileStatus file : files) {
      String name = relative(fs, root, file.getPath());
      if (!name.equals(skip)) relative.add(name);
    }
    relative.sort(null);
    return relative;
  }

  /** {@code file}'s path relative to {@code root} ({@code state/0/1/2.zip}). */
  public static String relative(FileSystem fs, Path root, Path file) {
    String base = fs.makeQualified(root).toUri().getPath();
    return fs.makeQualified(file).toUri().getPath().substring(base.length() + 1);
  }

  /** The digests of {@code files} (relative to {@code root}), in their order: a Spark job. */
  public static List<Digest> of(SparkSession spark, Path root, List<String> files) {
    return FileJob.run(
        spark, "checksums", root, files, (conf, file, f) -> of(file.getFileSystem(conf), file, f));
  }

  /** The digest of one file, recorded under the name {@code relative}. */
  public static Digest of(FileSystem fs, Path file, String relative) throws IOException {
    try (InputStream in = fs.open(file)) {
      return transfer(in, null, relative);
    }
  }

  /**
   * Copies {@code from} to the new file {@code to} (which must not exist) and returns the
   * digest of the bytes copied, recorded under the name {@code relative}: one read for both.
   */
  public static Digest copy(FileSystem src, Path from, FileSystem dst, Path to, String relative)
      throws IOException {
    try (InputStream in = src.open(from);
        OutputStream out = dst.create(to, false)) {
      return transfer(in, out, relative);
    }
  }

  private static Digest transfer(InputStream in, OutputStream out, String relative)
      throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    long bytes = 0;
    byte[] buffer = new byte[BUFFER];
    for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
      sha.update(buffer, 0, read);
      if (out != null) out.write(buffer, 0, read);
      bytes += read;
    }
    return new Digest(relative, bytes, HexFormat.of().formatHex(sha.digest()));
  }
}
