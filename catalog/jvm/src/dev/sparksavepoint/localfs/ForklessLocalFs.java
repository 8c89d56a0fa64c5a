package dev.sparksavepoint.localfs;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.local.LocalConfigKeys;

/**
 * {@code fs.AbstractFileSystem.file.impl}: what {@code FileContext} (Spark's checkpoint file
 * manager, the state stores) uses for {@code file:} paths, Hadoop's {@code LocalFs} over
 * {@link ForklessRawLocalFileSystem}.
 */
public class ForklessLocalFs extends ChecksumFs {
  public ForklessLocalFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(new Raw(uri, conf));
  }

  /** Hadoop's {@code RawLocalFs}, delegating to {@link ForklessRawLocalFileSystem}. */
  static final class Raw extends DelegateToFileSystem {
    Raw(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, new ForklessRawLocalFileSystem(), conf, uri.getScheme(), false);
    }

    @Override
    public int getUriDefaultPort() {
      return -1;
    }

    @Override
    public FsServerDefaults getServerDefaults(Path f) throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    @Deprecated
    public FsServerDefaults getServerDefaults() throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    public boolean isValidName(String src) {
      return true;
    }

    /**
     * A rename that fails if {@code dst} exists, atomically. Hadoop checks that the target is
     * absent and then renames, so of two writers racing for one file (two edits claiming
     * {@code offsets/N}, two savepoints claiming a folder's {@code metadata}) both could pass
     * the check, and the later rename would replace the earlier file. A hard link fails on an
     * existing target in one system call; then the temporary name goes. Folders, overwrites
     * and disks without hard links take Hadoop's way.
     */
    @Override
    public void renameInternal(Path src, Path dst, boolean overwrite) throws IOException {
      RawLocalFileSystem local = (RawLocalFileSystem) fsImpl;
      java.nio.file.Path from = local.pathToFile(src).toPath();
      if (overwrite || !Files.isRegularFile(from, LinkOption.NOFOLLOW_LINKS)) {
        super.renameInternal(src, dst, overwrite);
        return;
      }
      try {
        Files.createLink(local.pathToFile(dst).toPath(), from);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        throw new FileAlreadyExistsException("rename destination " + dst + " already exists");
      } catch (UnsupportedOperationException | FileSystemException e) {
        super.renameInternal(src, dst, false); // no hard links here, or no parent: Hadoop's way
        return;
      }
      Files.delete(from);
    }
  }
}
