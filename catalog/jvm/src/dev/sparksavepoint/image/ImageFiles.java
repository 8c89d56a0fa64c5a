package dev.sparksavepoint.image;

import dev.sparksavepoint.checkpoint.FileDigests;
import dev.sparksavepoint.checkpoint.StoreFiles;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.image.ImagePlan.StoreCopy;
import dev.sparksavepoint.read.HdfsFiles;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.RocksDBCheckpointMetadata;
import org.apache.spark.sql.execution.streaming.state.RocksDBImmutableFile;
import org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;

/**
 * The file-level copy of one store partition, taken where version N+1 already is one full image
 * in a form the target keeps (same provider, same partition count): the files are copied as
 * they are, byte for byte, so nothing is decoded or re-encoded and a checkpoint written by
 * another Spark version stays in that version's format.
 * <ul>
 *   <li>RocksDB: the version's {@code .zip} ({@code N+1.zip}, or {@code N+1_<id>.zip} with
 *       checkpoint format v2) and the SST and log files its metadata lists, read with Spark's
 *       own {@code RocksDBCheckpointMetadata}; its key count is the partition's row count.
 *   <li>HDFS-backed: {@code N+1.snapshot}, or {@code 1.delta} for version 1 (a delta from
 *       nothing is the whole state); no file records its row count: when the plan asks
 *       ({@link ImagePlan#withRowCounts}) its records are counted as Spark's reader reads them,
 *       else the partition's rows are reported as not counted (-1).
 * </ul>
 * A file's checksum companion ({@code <file>.crc}, Spark 4.1+) is copied with it.
 * A version kept as changes only (a RocksDB changelog, an HDFS delta chain) has no such image:
 * {@link #copy} returns null and the partition is copied entry by entry instead.
 */
final class ImageFiles {
  private static final String ZIP_METADATA = "metadata";

  /** The suffix of the checksum file Spark 4.1+ may write beside a state file. */
  private static final String CHECKSUM = ".crc";

  private ImageFiles() {}

  /**
   * True when {@code copy} may be copied as files: the same provider and partition count, no
   * value change, no rows to count by reading. A partition whose version has no full image is
   * still copied entry by entry ({@link #copy} returns null for it).
   */
  static boolean copiesFiles(ImagePlan plan, StoreCopy copy) {
    return copy.from() != null
        && copy.transform() == null
        && !plan.rowCounts()
        && keepsLayout(plan, copy);
  }

  /** True when the target keeps the source's provider and partition count. */
  private static boolean keepsLayout(ImagePlan plan, StoreCopy copy) {
    return !copy.rehash()
        && plan.targetConf().providerClass().equals(plan.sourceConf().providerClass());
  }

  /**
   * Copies partition {@code p}'s image files (their digests computed on the way); null when the
   * version has no full image.
   */
  static CopiedPartition copy(ImagePlan plan, StoreCopy copy, int p) {
    if (!keepsLayout(plan, copy)) return null;
    String provider = plan.targetConf().providerClass();
    StoreSpec from = copy.from();
    StoreSpec to = copy.to();
    Path source = folder(plan.sourceState(), from, p);
    Path target = folder(plan.stateLocation(), to, p);
    Configuration conf = plan.hadoopConf();
    String id = plan.sourceId(from, p);
    try {
      FileSystem fs = source.getFileSystem(conf);
      List<FileDigests.Digest> digests = new ArrayList<>();
      long rows;
      if (provider.equals(RocksDBStateStoreProvider.class.getName())) {
        Path zip = new Path(source, plan.version() + (id == null ? "" : "_" + id) + ".zip");
        if (!fs.exists(zip)) return null;
        RocksDBCheckpointMetadata metadata = zipMetadata(fs, zip);
        if (metadata.numKeys() < 0) return null;
        List<String> files = new ArrayList<>(List.of(zip.getName()));
        for (RocksDBImmutableFile f :
            scala.jdk.javaapi.CollectionConverters.asJava(metadata.immutableFiles())) {
          files.add(dfsPath(f.dfsFileName()));
        }
        copyFiles(plan, fs, source, target, files, digests);
        rows = metadata.numKeys();
      } else if (provider.equals(HDFSBackedStateStoreProvider.class.getName())) {
        String image = hdfsImage(fs, source, plan.version());
        if (image == null) return null;
        copyFiles(plan, fs, source, target, List.of(image), digests);
        rows = plan.rowCounts() ? hdfsRows(plan, copy, p, image) : -1;
      } else {
        return null;
      }
      return new CopiedPartition(
          new PartitionCommit(to.operatorId(), to.storeName(), p, id, rows, 0), digests);
    } catch (IOException e) {
      throw new IllegalStateException(
          "[SAVEPOINT_WRITE_FAILED] copying " + source + " to " + target + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * The entries of an HDFS-backed image file {@code image} of partition {@code p}: its records,
   * counted as Spark's reader reads them ({@link HdfsFiles#records}) where each key has one (a
   * snapshot; the first delta of a store of one entry per key, unless it removes), else through
   * a read-only store of Spark's provider (which builds the partition's map). A join's first
   * delta puts a key's row count once per row.
   */
  private static long hdfsRows(ImagePlan plan, StoreCopy copy, int p, String image) {
    StoreSpec from = copy.from();
    boolean keyOnce =
        StoreFiles.isSnapshot(image) || from.storeName().equals(StateStoreId.DEFAULT_STORE_NAME());
    long rows =
        !keyOnce
            ? -1
            : HdfsFiles.records(
                new StateStoreId(plan.sourceState(), from.operatorId(), p, from.storeName()),
                StoreFiles.versionOf(image),
                image.substring(image.indexOf('.') + 1),
                from.keySchema(),
                from.valueSchema(),
                plan.sourceConf(),
                plan.hadoopConf());
    if (rows >= 0) return rows;
    try (ImagePartition.Source entries = new ImagePartition.Source(plan, copy, p)) {
      return entries.count();
    }
  }

  /** The folder of one store partition under a {@code state/} folder. */
  static Path folder(String state, StoreSpec spec, int p) {
    return new Path(
        new StateStoreId(state, spec.operatorId(), p, spec.storeName())
            .storeCheckpointLocation()
            .toString());
  }

  /** {@code N.snapshot}, or {@code 1.delta} for version 1; null when neither exists. */
  private static String hdfsImage(FileSystem fs, Path folder, long version) throws IOException {
    if (fs.exists(new Path(folder, version + ".snapshot"))) return version + ".snapshot";
    if (version == 1 && fs.exists(new Path(folder, "1.delta"))) return "1.delta";
    return null;
  }

  /** Where RocksDB keeps an immutable file of a version, relative to the partition folder. */
  private static String dfsPath(String name) {
    if (RocksDBImmutableFile.isSstFile(name)) {
      return RocksDBImmutableFile.SST_FILES_DFS_SUBDIR() + "/" + name;
    }
    if (RocksDBImmutableFile.isLogFile(name)) {
      return RocksDBImmutableFile.LOG_FILES_DFS_SUBDIR() + "/" + name;
    }
    return name;
  }

  /** The checkpoint metadata inside a RocksDB version's zip, parsed by Spark. */
  private static RocksDBCheckpointMetadata zipMetadata(FileSystem fs, Path zip) throws IOException {
    File local = Files.createTempFile("savepoint-rocksdb-", ".metadata").toFile();
    try (ZipInputStream in = new ZipInputStream(fs.open(zip))) {
      for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        if (!e.getName().equals(ZIP_METADATA)) continue;
        Files.copy(in, local.toPath(), StandardCopyOption.REPLACE_EXISTING);
        return RocksDBCheckpointMetadata.readFromFile(local);
      }
      throw new IOException(zip + " holds no " + ZIP_METADATA + " file");
    } finally {
      Files.deleteIfExists(local.toPath());
    }
  }

  private static void copyFiles(
      ImagePlan plan,
      FileSystem fs,
      Path from,
      Path to,
      List<String> files,
      List<FileDigests.Digest> digests)
      throws IOException {
    FileSystem target = to.getFileSystem(plan.hadoopConf());
    Path root = new Path(plan.checkpoint());
    for (String name : files) {
      for (String file : List.of(name, name + CHECKSUM)) {
        Path source = new Path(from, file);
        if (!file.equals(name) && !fs.exists(source)) continue;
        Path dest = new Path(to, file);
        digests.add(
            FileDigests.copy(fs, source, target, dest, FileDigests.relative(target, root, dest)));
      }
    }
  }
}
