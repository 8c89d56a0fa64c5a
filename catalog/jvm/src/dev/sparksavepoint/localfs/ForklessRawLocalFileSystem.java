package dev.sparksavepoint.localfs;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system, with the two calls that fork a process per file where Hadoop's
 * native library is missing (as in pip's pyspark) made through {@code java.nio} instead:
 * {@code setPermission} (a {@code chmod} process for every file and folder a state store or a
 * checkpoint log creates) and {@code getFileLinkStatus} (a {@code readlink} process for every
 * rename through {@code FileContext}). An edit of a local checkpoint forked about 60 processes.
 * Everything else, and every symbolic link, a sticky bit or a non-POSIX disk, is Hadoop's own.
 */
public class ForklessRawLocalFileSystem extends RawLocalFileSystem {
  @Override
  public void setPermission(Path p, FsPermission permission) throws IOException {
    Set<PosixFilePermission> posix = posix(permission);
    if (posix == null) {
      super.setPermission(p, permission);
      return;
    }
    try {
      Files.setPosixFilePermissions(pathToFile(p).toPath(), posix);
    } catch (UnsupportedOperationException e) {
      super.setPermission(p, permission);
    }
  }

  @Override
  public FileStatus getFileLinkStatus(Path f) throws IOException {
    File file = pathToFile(f);
    if (Files.isSymbolicLink(file.toPath())) return super.getFileLinkStatus(f);
    return getFileStatus(f);
  }

  /** {@code permission} as java.nio's set, or null when it has bits NIO cannot set. */
  static Set<PosixFilePermission> posix(FsPermission permission) {
    if (permission.getStickyBit()) return null;
    Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
    add(
        set,
        permission.getUserAction(),
        PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_EXECUTE);
    add(
        set,
        permission.getGroupAction(),
        PosixFilePermission.GROUP_READ,
        PosixFilePermission.GROUP_WRITE,
        PosixFilePermission.GROUP_EXECUTE);
    add(
        set,
        permission.getOtherAction(),
        PosixFilePermission.OTHERS_READ,
        PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_EXECUTE);
    return set;
  }

  private static void add(
      Set<PosixFilePermission> set,
      FsAction action,
      PosixFilePermission read,
      PosixFilePermission write,
      PosixFilePermission execute) {
    if (action.implies(FsAction.READ)) set.add(read);
    if (action.implies(FsAction.WRITE)) set.add(write);
    if (action.implies(FsAction.EXECUTE)) set.add(execute);
  }
}
