package dev.sparksavepoint.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The SST files a RocksDB snapshot zip names: its {@code metadata} entry, a version line and
 * JSON ({@code {"sstFiles":[{"dfsSstFileName":"000012-<uuid>.sst","sizeBytes":1234}],...}}),
 * each of which must be in the store folder's {@code SSTs/} with that size.
 */
final class ZipManifest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ZipManifest() {}

  static void check(
      FileSystem fs,
      Path root,
      CheckpointTree tree,
      String folder,
      String zip,
      long batch,
      long op,
      int partition,
      Consumer<Finding> found) {
    String file = folder + "/" + zip;
    JsonNode manifest;
    try {
      byte[] kept = tree.zipMetadata(file);
      manifest = kept != null ? parse(kept) : read(fs, new Path(root, file));
    } catch (IOException | RuntimeException e) {
      found.accept(
          Finding.of(
              Check.STATE_FILE_CORRUPT,
              batch,
              op,
              partition,
              file,
              file + " cannot be read as a RocksDB snapshot: " + LogChecks.reason(e)));
      return;
    }
    for (JsonNode sst : manifest.path("sstFiles")) {
      String sstFile = folder + "/SSTs/" + sst.path("dfsSstFileName").asText();
      long recorded = sst.path("sizeBytes").asLong(-1);
      if (!tree.has(sstFile)) {
        found.accept(
            Finding.of(
                Check.SST_FILE_MISSING,
                batch,
                op,
                partition,
                sstFile,
                sstFile + " is missing: the snapshot " + file + " names it"));
      } else if (recorded >= 0 && tree.size(sstFile) != recorded) {
        found.accept(
            Finding.of(
                Check.STATE_FILE_CORRUPT,
                batch,
                op,
                partition,
                sstFile,
                sstFile
                    + " has "
                    + tree.size(sstFile)
                    + " bytes, the snapshot "
                    + file
                    + " records "
                    + recorded));
      }
    }
  }

  private static JsonNode read(FileSystem fs, Path zip) throws IOException {
    try (InputStream in = fs.open(zip)) {
      byte[] metadata = metadataEntry(in);
      if (metadata == null) throw new IOException("it has no metadata entry");
      return parse(metadata);
    }
  }

  /** The bytes of the {@code metadata} entry of the zip {@code in} streams, or null. */
  static byte[] metadataEntry(InputStream in) throws IOException {
    ZipInputStream entries = new ZipInputStream(in);
    for (ZipEntry entry = entries.getNextEntry(); entry != null; entry = entries.getNextEntry()) {
      if (entry.getName().equals("metadata")) return entries.readAllBytes();
    }
    return null;
  }

  /** The JSON line of a snapshot's {@code metadata} entry (its first line is the version). */
  private static JsonNode parse(byte[] metadata) throws IOException {
    String text = new String(metadata, StandardCharsets.UTF_8);
    String json = text.lines().skip(1).findFirst().orElseThrow(() -> new IOException("empty"));
    return JSON.readTree(json);
  }
}
