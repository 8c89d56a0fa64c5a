package dev.sparksavepoint.checkpoint;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.EnumSet;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.apache.hadoop.fs.permission.FsPermission;

/** The two file primitives of the tool's own checkpoint files: read a small file, create one. */
public final class CheckpointFiles {
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
   * Writes a new file so that it is visible complete or not at all, and never replaces one:
   * a temporary file of this writer's own ({@code .<name>.<uuid>.tmp}), then a rename that
   * fails if the target exists (FileContext's {@code Rename.NONE}, the primitive Spark's own
   * metadata logs use). The temporary file is removed whatever happens.
   *
   * @throws FileAlreadyExistsException when {@code file} exists
   */
  public static void writeNew(Path file, byte[] bytes, Configuration conf) throws IOException {
    Path dir = file.getParent();
    Path temp = new Path(dir, "." + file.getName() + "." + UUID.randomUUID() + ".tmp");
    FileContext fc;
    try {
      fc = FileContext.getFileContext(file.toUri(), conf);
    } catch (UnsupportedFileSystemException e) {
      writeWithFileSystem(file, temp, bytes, conf);
      return;
    }
    if (!fc.util().exists(dir)) fc.mkdir(dir, FsPermission.getDirDefault(), true);
    if (fc.util().exists(file)) throw new FileAlreadyExistsException(file.toString());
    try {
      try (FSDataOutputStream out = fc.create(temp, EnumSet.of(CreateFlag.CREATE))) {
        out.write(bytes);
      }
      fc.rename(temp, file, Options.Rename.NONE);
    } finally {
      if (fc.util().exists(temp)) fc.delete(temp, false);
    }
  }

  /** {@link #writeNew} where Hadoop has no FileContext binding for the scheme. */
  private static void writeWithFileSystem(Path file, Path temp, byte[] bytes, Configuration conf)
      throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    if (fs.exists(file)) throw new FileAlreadyExistsException(file.toString());
    try {
      try (FSDataOutputStream out = fs.create(temp, false)) {
        out.write(bytes);
      }
      if (fs.exists(file) || !fs.rename(temp, file)) {
        throw new FileAlreadyExistsException(file.toString());
      }
    } finally {
      if (fs.exists(temp)) fs.delete(temp, false);
    }
  }
}
