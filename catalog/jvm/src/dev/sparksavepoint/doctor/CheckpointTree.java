package dev.sparksavepoint.doctor;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * Every file and folder of a checkpoint, listed once, checksum sidecars ({@code .1.delta.crc},
 * which Hadoop's local file system hides) included: relative path to size. Folders map to -1.
 * Object stores and HDFS are listed flat (one paged listing), the local disk walked.
 */
final class CheckpointTree {
  static final long FOLDER = -1;

  private final NavigableMap<String, Long> entries;
  private final java.util.Map<String, byte[]> zipMetadata = new java.util.HashMap<>();

  private CheckpointTree(NavigableMap<String, Long> entries) {
    this.entries = entries;
  }

  /**
   * Keeps the {@code metadata} entry of RocksDB snapshot {@code zip}, read along with its
   * checksums: the zip's SST list is then checked without reading the file again.
   */
  void rememberZipMetadata(String zip, byte[] metadata) {
    zipMetadata.put(zip, metadata);
  }

  /** The {@code metadata} entry of {@code zip} read along the way, or null. */
  byte[] zipMetadata(String zip) {
    return zipMetadata.get(zip);
  }

  /** The files and folders under {@code root}, sidecars included. */
  static CheckpointTree list(FileSystem fs, Path root) throws IOException {
    FileSystem raw = fs instanceof ChecksumFileSystem c ? c.getRawFileSystem() : fs;
    Path base = fs.makeQualified(root);
    TreeMap<String, Long> entries = new TreeMap<>();
    if (raw != fs || "file".equals(fs.getUri().getScheme())) {
      walk(raw, base, "", entries);
    } else {
      RemoteIterator<LocatedFileStatus> files = raw.listFiles(base, true);
      int prefix = base.toUri().getPath().replaceAll("/+$", "").length() + 1;
      while (files.hasNext()) {
        LocatedFileStatus file = files.next();
        String path = file.getPath().toUri().getPath();
        String relative = path.substring(Math.min(prefix, path.length()));
        entries.put(relative, file.getLen());
        for (int slash = relative.lastIndexOf('/'); slash > 0; ) {
          entries.putIfAbsent(relative.substring(0, slash), FOLDER);
          slash = relative.lastIndexOf('/', slash - 1);
        }
      }
    }
    return new CheckpointTree(entries);
  }

  private static void walk(FileSystem fs, Path dir, String prefix, TreeMap<String, Long> entries)
      throws IOException {
    FileStatus[] children;
    try {
      children = fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      return; // removed meanwhile
    }
    for (FileStatus child : children) {
      String relative = prefix + child.getPath().getName();
      if (child.isDirectory()) {
        entries.put(relative, FOLDER);
        walk(fs, child.getPath(), relative + "/", entries);
      } else {
        entries.put(relative, child.getLen());
      }
    }
  }

  /** True for what a repair keeps ({@code _savepoint/repairs/...}): the doctor checks none of it. */
  static boolean isBackup(String path) {
    return path.startsWith(Repair.FOLDER + "/");
  }

  boolean has(String path) {
    return entries.containsKey(path);
  }

  boolean isFolder(String path) {
    Long size = entries.get(path);
    return size != null && size == FOLDER;
  }

  /** The size of file {@code path}, or -1 (a folder, or missing). */
  long size(String path) {
    return entries.getOrDefault(path, FOLDER);
  }

  /** The names directly in folder {@code folder} ("" for the root), sorted. */
  List<String> children(String folder) {
    String prefix = folder.isEmpty() ? "" : folder + "/";
    List<String> names = new java.util.ArrayList<>();
    for (String path : entries.tailMap(prefix, true).keySet()) {
      if (!path.startsWith(prefix)) break;
      String rest = path.substring(prefix.length());
      if (!rest.isEmpty() && rest.indexOf('/') < 0) names.add(rest);
    }
    return Collections.unmodifiableList(names);
  }

  /** Every file (not folder) path, sorted. */
  List<String> files() {
    return entries.entrySet().stream()
        .filter(e -> e.getValue() != FOLDER)
        .map(e -> e.getKey())
        .toList();
  }
}
