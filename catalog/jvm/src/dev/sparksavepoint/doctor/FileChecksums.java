package dev.sparksavepoint.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.FileJob;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Whether files still match their checksums: Hadoop's ({@code .<name>.crc} beside a file on the
 * local file system, verified by reading the file through {@code ChecksumFileSystem}) and Spark's
 * own ({@code <name>.crc}, JSON with the CRC32C and size of a state file, written with
 * checkpoint format 2 from Spark 4.1 on). Each file is read once, by a Spark job (in parallel,
 * where the files live); a RocksDB snapshot zip's {@code metadata} entry (its SST list) is kept
 * from that read ({@link CheckpointTree#zipMetadata}), so that its check reads the zip no more.
 */
final class FileChecksums {
  private static final int BUFFER = 1 << 16;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A file that does not match a checksum: which one, and how. */
  record Mismatch(String path, String checksumFile, String detail) implements Serializable {}

  /** What reading one file found, and a RocksDB snapshot zip's metadata entry (else null). */
  private record Checked(List<Mismatch> mismatches, byte[] zipMetadata) implements Serializable {}

  /** Zips up to this size keep their bytes while they are read (their SST files are apart). */
  private static final long ZIP_KEPT_BYTES = 64L << 20;

  private FileChecksums() {}

  /** The files of {@code tree} that have a Hadoop or a Spark checksum file, sorted. */
  static List<String> checked(CheckpointTree tree) {
    List<String> files = new ArrayList<>();
    for (String file : tree.files()) {
      if (hadoopSidecar(file) != null || CheckpointTree.isBackup(file)) continue;
      if (tree.has(sidecarOf(file)) || hasSparkChecksum(tree, file)) {
        files.add(file);
      }
    }
    return files;
  }

  /** Reads each of {@code files} (relative to {@code root}) once; the ones that do not match. */
  static List<Mismatch> mismatches(
      SparkSession spark, Path root, List<String> files, CheckpointTree tree) {
    HashSet<String> withSparkChecksum = new HashSet<>();
    for (String file : files) {
      if (hasSparkChecksum(tree, file)) withSparkChecksum.add(file);
    }
    HashSet<String> keptZips = new HashSet<>();
    for (String file : files) {
      long size = tree.size(file);
      if (file.endsWith(".zip") && size >= 0 && size <= ZIP_KEPT_BYTES) keptZips.add(file);
    }
    List<Checked> found =
        FileJob.run(
            spark,
            "doctor: checksums",
            root,
            files,
            (conf, file, f) ->
                check(
                    file.getFileSystem(conf),
                    file,
                    f,
                    withSparkChecksum.contains(f),
                    keptZips.contains(f)));
    for (int i = 0; i < files.size(); i++) {
      Checked checked = found.get(i);
      if (checked.zipMetadata() != null && checked.mismatches().isEmpty()) {
        tree.rememberZipMetadata(files.get(i), checked.zipMetadata());
      }
    }
    return found.stream().flatMap(c -> c.mismatches().stream()).toList();
  }

  private static Checked check(
      FileSystem fs, Path file, String relative, boolean spark, boolean keepZip)
      throws IOException {
    List<Mismatch> found = new ArrayList<>();
    CRC32C crc = new CRC32C();
    ByteArrayOutputStream bytes = keepZip ? new ByteArrayOutputStream() : null;
    long size = 0;
    try {
      size = read(fs, file, crc, bytes);
    } catch (ChecksumException e) {
      found.add(
          new Mismatch(
              relative,
              sidecarOf(relative),
              "does not match its Hadoop checksum file from byte " + e.getPos()));
      if (!spark || !(fs instanceof ChecksumFileSystem checksummed))
        return new Checked(found, null);
      crc.reset();
      size = read(checksummed.getRawFileSystem(), file, crc, null);
      bytes = null;
    }
    if (spark) {
      String detail =
          sparkMismatch(fs, new Path(file.getParent(), file.getName() + ".crc"), crc, size);
      if (detail != null) found.add(new Mismatch(relative, relative + ".crc", detail));
    }
    byte[] metadata = null;
    if (bytes != null) {
      try {
        metadata = ZipManifest.metadataEntry(new ByteArrayInputStream(bytes.toByteArray()));
      } catch (IOException e) {
        metadata = null; // the doctor reads it again and says what is wrong
      }
    }
    return new Checked(found, metadata);
  }

  /** Reads {@code file} once into {@code crc} (and {@code bytes}, when given); its size. */
  private static long read(FileSystem fs, Path file, CRC32C crc, ByteArrayOutputStream bytes)
      throws IOException {
    long size = 0;
    byte[] buffer = new byte[BUFFER];
    try (InputStream in = fs.open(file)) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        crc.update(buffer, 0, n);
        if (bytes != null) bytes.write(buffer, 0, n);
        size += n;
      }
    }
    return size;
  }

  /** How the file differs from Spark's checksum file {@code checksum}, or null when it matches. */
  private static String sparkMismatch(FileSystem fs, Path checksum, CRC32C crc, long size) {
    JsonNode json;
    try {
      json = JSON.readTree(CheckpointFiles.readAsSpark(fs, checksum, () -> {}));
    } catch (IOException e) {
      return "has a Spark checksum file that cannot be read: " + LogChecks.reason(e);
    }
    long recordedSize = json.path("mainFileSize").asLong(-1);
    if (recordedSize >= 0 && recordedSize != size) {
      return "has " + size + " bytes, where its Spark checksum file records " + recordedSize;
    }
    if (!"CRC32C".equalsIgnoreCase(json.path("algorithm").asText("CRC32C"))) return null;
    if ((int) crc.getValue() != json.path("value").asInt()) {
      return "does not match the CRC32C its Spark checksum file records";
    }
    return null;
  }

  /** {@code dir/.name.crc}: Hadoop's checksum file of {@code dir/name}. */
  static String sidecarOf(String file) {
    int slash = file.lastIndexOf('/');
    return file.substring(0, slash + 1) + "." + file.substring(slash + 1) + ".crc";
  }

  /** The file a Hadoop sidecar {@code dir/.name.crc} belongs to, or null. */
  static String hadoopSidecar(String file) {
    int slash = file.lastIndexOf('/');
    String name = file.substring(slash + 1);
    if (!name.startsWith(".") || !name.endsWith(".crc")) return null;
    return file.substring(0, slash + 1) + name.substring(1, name.length() - 4);
  }

  private static boolean hasSparkChecksum(CheckpointTree tree, String file) {
    return isStateFile(file) && tree.has(file + ".crc");
  }

  /** True for the files of a state store's folders, not its checksum files. */
  static boolean isStateFile(String file) {
    String name = file.substring(file.lastIndexOf('/') + 1);
    return file.startsWith("state/") && !name.startsWith(".") && !name.endsWith(".crc");
  }
}
