package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The file primitives of the tool's own checkpoint files: read a small file (or its JSON object),
 * create one, replace one.
 */
public final class CheckpointFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CheckpointFiles() {}

  /** The whole content of a (small, log or metadata) file. */
  public static byte[] readAll(FileSystem fs, Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  /**
   * The whole content of a checkpoint file, read as Spark's checkpoint file manager reads it.
   * Hadoop's local file system keeps a checksum file beside each file ({@code .<name>.crc}) and
   * {@code FileSystem.open} verifies it; Spark opens checkpoint files through
   * {@code FileContext} instead, whose {@code LocalFs.open(Path)} is {@code FilterFs}'s: it goes
   * to the raw local file system (only {@code ChecksumFs.open(Path, int)} verifies). So a file
   * changed after it was written, whose checksum file no longer matches, reads in Spark (the
   * 4.0.0 transformWithState goldens' {@code offsets/}). This reads it too, from the raw file
   * system, and runs {@code onStaleChecksum}; a damaged file elsewhere still fails.
   */
  public static byte[] readAsSpark(FileSystem fs, Path file, Runnable onStaleChecksum)
      throws IOException {
    try {
      return readAll(fs, file);
    } catch (ChecksumException e) {
      if (!(fs instanceof ChecksumFileSystem checksummed)) throw e;
      byte[] bytes = readAll(checksummed.getRawFileSystem(), file);
      onStaleChecksum.run();
      return bytes;
    }
  }

  /** {@code .<name>.crc}: the checksum file Hadoop's local file system keeps beside a file. */
  public static Path checksumFile(Path file) {
    return new Path(file.getParent(), "." + file.getName() + ".crc");
  }

  /**
   * The fields of the small JSON object in {@code file}, in file order; empty when the file
   * does not exist.
   */
  public static Map<String, JsonNode> jsonFields(FileSystem fs, Path file) throws IOException {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    try {
      JSON.readTree(readAll(fs, file))
          .fields()
          .forEachRemaining(field -> fields.put(field.getKey(), field.getValue()));
    } catch (FileNotFoundException e) {
      // no file: no fields
    }
    return fields;
  }

  /**
   * The create option (and path capability) of a store that can create a file only if it is
   * absent, in one request: hadoop-aws 3.5's S3A sends a PUT with {@code If-None-Match: *}.
   */
  public static final String CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite";

  /** Simple name of S3A's exception for a refused precondition (HTTP 412). */
  private static final String PRECONDITION_FAILED = "RemoteFileChangedException";

  /** {@code node} as pretty-printed UTF-8 JSON: the form of the tool's own files. */
  public static byte[] prettyJson(JsonNode node) throws IOException {
    return JSON.writerWithDefaultPrettyPrinter()
        .writeValueAsString(node)
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * Writes a new file so that it is visible complete or not at all, and never replaces one.
   * Where the store creates conditionally ({@link #CONDITIONAL_CREATE}, S3A) that is one
   * request the store refuses if the object exists. Elsewhere it is a temporary file of this
   * writer's own ({@code .<name>.<uuid>.tmp}), then a rename that fails if the target exists
   * (FileContext's {@code Rename.NONE}, the primitive Spark's own metadata logs use; atomic on
   * HDFS and local disk); the temporary file is removed whatever happens.
   *
   * @throws FileAlreadyExistsException when {@code file} exists
   */
  public static void writeNew(Path file, byte[] bytes, Configuration conf) throws IOException {
    writeNew(file, bytes, conf, () -> {});
  }

  /**
   * {@link #writeNew}, running {@code beforePublish} once the temporary file is written and
   * before it is renamed (before the one request of a conditional create): the moment a kill
   * leaves a temporary file behind (crash tests).
   */
  public static void writeNew(Path file, byte[] bytes, Configuration conf, Runnable beforePublish)
      throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    if (fs.hasPathCapability(file, CONDITIONAL_CREATE)) {
      beforePublish.run();
      createIfAbsent(fs, file, bytes);
    } else {
      renamedFromTemporary(fs, file, bytes, conf, Options.Rename.NONE, beforePublish);
    }
  }

  /**
   * {@link #writeNew} on a store with conditional create: the store itself refuses the
   * request when the object exists, so of writers racing for {@code file} exactly one wins.
   */
  private static void createIfAbsent(FileSystem fs, Path file, byte[] bytes) throws IOException {
    FSDataOutputStreamBuilder<?, ?> create = fs.createFile(file).overwrite(false);
    create.must(CONDITIONAL_CREATE, true);
    try (FSDataOutputStream out = create.build()) {
      out.write(bytes);
    } catch (IOException e) {
      if (e instanceof FileAlreadyExistsException
          || e.getClass().getSimpleName().equals(PRECONDITION_FAILED)) {
        FileAlreadyExistsException exists = new FileAlreadyExistsException(file.toString());
        exists.initCause(e);
        throw exists;
      }
      throw e;
    }
  }

  /**
   * Writes {@code file} so that readers see the old content or the new one, never a part.
   * Where the store creates conditionally (S3A, whose PUT is atomic) in one request; elsewhere
   * as a temporary file of this writer's own renamed over the old one (FileContext's
   * {@code Rename.OVERWRITE}; where the scheme has no FileContext binding, the old file is
   * deleted first). The temporary file is removed whatever happens.
   */
  public static void replace(Path file, byte[] bytes, Configuration conf) throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    if (!fs.hasPathCapability(file, CONDITIONAL_CREATE)) {
      renamedFromTemporary(fs, file, bytes, conf, Options.Rename.OVERWRITE, () -> {});
      return;
    }
    try (FSDataOutputStream out = fs.create(file, true)) {
      out.write(bytes);
    }
  }

  /**
   * Writes {@code bytes} into a temporary file of this writer's own, then renames it to
   * {@code file}: {@code mode} NONE fails if {@code file} exists, OVERWRITE replaces it. Through
   * FileContext, or FileSystem where Hadoop has no FileContext binding for the scheme;
   * {@code beforePublish} runs between the two. The temporary file is removed whatever happens.
   */
  private static void renamedFromTemporary(
      FileSystem fs,
      Path file,
      byte[] bytes,
      Configuration conf,
      Options.Rename mode,
      Runnable beforePublish)
      throws IOException {
    Path temp = temporary(file);
    boolean replace = mode == Options.Rename.OVERWRITE;
    FileContext fc;
    try {
      fc = FileContext.getFileContext(file.toUri(), conf);
    } catch (UnsupportedFileSystemException e) {
      renamedWithFileSystem(fs, temp, file, bytes, replace, beforePublish);
      return;
    }
    Path dir = file.getParent();
    if (!fc.util().exists(dir)) fc.mkdir(dir, FsPermission.getDirDefault(), true);
    if (!replace && fc.util().exists(file)) throw new FileAlreadyExistsException(file.toString());
    try {
      try (FSDataOutputStream out = fc.create(temp, EnumSet.of(CreateFlag.CREATE))) {
        out.write(bytes);
      }
      beforePublish.run();
      fc.rename(temp, file, mode);
    } finally {
      if (fc.util().exists(temp)) fc.delete(temp, false);
    }
  }

  /** {@link #renamedFromTemporary} where Hadoop has no FileContext binding for the scheme. */
  private static void renamedWithFileSystem(
      FileSystem fs, Path temp, Path file, byte[] bytes, boolean replace, Runnable beforePublish)
      throws IOException {
    if (!replace && fs.exists(file)) throw new FileAlreadyExistsException(file.toString());
    try {
      try (FSDataOutputStream out = fs.create(temp, false)) {
        out.write(bytes);
      }
      beforePublish.run();
      if (replace) fs.delete(file, false);
      if (fs.exists(file) || !fs.rename(temp, file)) {
        throw new FileAlreadyExistsException(file.toString());
      }
    } finally {
      if (fs.exists(temp)) fs.delete(temp, false);
    }
  }

  /** A temporary file of this writer's own beside {@code file}: {@code .<name>.<uuid>.tmp}. */
  private static Path temporary(Path file) {
    return new Path(file.getParent(), "." + file.getName() + "." + UUID.randomUUID() + ".tmp");
  }
}
