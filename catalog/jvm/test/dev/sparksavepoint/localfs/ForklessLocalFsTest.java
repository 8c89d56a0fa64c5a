package dev.sparksavepoint.localfs;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertFalse;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.Test;
import java.io.FileNotFoundException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

public class ForklessLocalFsTest {
  private static Configuration conf() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", ForklessLocalFileSystem.class.getName());
    conf.set("fs.AbstractFileSystem.file.impl", ForklessLocalFs.class.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  private static java.nio.file.Path tempDir() throws Exception {
    return Files.createTempDirectory("forkless");
  }

  @Test
  public void setsPermissionsLikeChmod() throws Exception {
    java.nio.file.Path dir = tempDir();
    FileSystem fs = new Path(dir.toUri()).getFileSystem(conf());
    assertTrue(fs instanceof ForklessLocalFileSystem, "fs.file.impl is taken");
    Path file = new Path(dir.toUri().toString(), "a/b/f");
    try (FSDataOutputStream out =
        fs.create(file, new FsPermission((short) 0640), false, 4096, (short) 1, 1 << 20, null)) {
      out.write(1);
    }
    assertEquals("rw-r-----", perms(dir.resolve("a/b/f")));
    fs.setPermission(file, new FsPermission((short) 0751));
    assertEquals("rwxr-x--x", perms(dir.resolve("a/b/f")));
    assertEquals(new FsPermission((short) 0751), fs.getFileStatus(file).getPermission());
    fs.setPermission(new Path(dir.toUri().toString(), "a"), new FsPermission((short) 0700));
    assertEquals("rwx------", perms(dir.resolve("a")));
  }

  @Test
  public void ofWritersRacingForOneFileExactlyOneWins() throws Exception {
    java.nio.file.Path dir = tempDir();
    FileContext fc = FileContext.getFileContext(dir.toUri(), conf());
    Path target = new Path(dir.toUri().toString(), "offsets/7");
    fc.mkdir(target.getParent(), FsPermission.getDirDefault(), true);
    for (int round = 0; round < 20; round++) {
      Path file = new Path(target.getParent(), "claim-" + round);
      int writers = 6;
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(writers);
      java.util.concurrent.atomic.AtomicInteger won =
          new java.util.concurrent.atomic.AtomicInteger();
      java.util.List<Thread> threads = new java.util.ArrayList<>();
      for (int w = 0; w < writers; w++) {
        Path tmp = new Path(target.getParent(), ".claim-" + round + "." + w + ".tmp");
        try (FSDataOutputStream out = fc.create(tmp, EnumSet.of(CreateFlag.CREATE))) {
          out.write(w);
        }
        Thread thread =
            new Thread(
                () -> {
                  try {
                    start.await();
                    fc.rename(tmp, file, Options.Rename.NONE);
                    won.incrementAndGet();
                  } catch (FileAlreadyExistsException e) {
                    // lost the race, as all but one must
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        threads.add(thread);
        thread.start();
      }
      for (Thread thread : threads) thread.join();
      assertEquals(1, won.get());
    }
  }

  @Test
  public void fileContextCreatesRenamesAndRefusesLikeHadoop() throws Exception {
    java.nio.file.Path dir = tempDir();
    FileContext fc = FileContext.getFileContext(dir.toUri(), conf());
    Path tmp = new Path(dir.toUri().toString(), "logs/.1.tmp");
    Path target = new Path(dir.toUri().toString(), "logs/1");
    fc.mkdir(tmp.getParent(), FsPermission.getDirDefault(), true);
    try (FSDataOutputStream out = fc.create(tmp, EnumSet.of(CreateFlag.CREATE))) {
      out.write(new byte[] {1, 2, 3});
    }
    fc.rename(tmp, target, Options.Rename.NONE);
    assertEquals(3L, fc.getFileStatus(target).getLen());
    assertFalse(fc.util().exists(tmp), "the temporary file is gone");
    Path second = new Path(dir.toUri().toString(), "logs/.1.other.tmp");
    try (FSDataOutputStream out = fc.create(second, EnumSet.of(CreateFlag.CREATE))) {
      out.write(9);
    }
    boolean refused = false;
    try {
      fc.rename(second, target, Options.Rename.NONE);
    } catch (FileAlreadyExistsException e) {
      refused = true;
    }
    assertTrue(refused, "a rename onto an existing file is refused");
    assertEquals(3L, fc.getFileStatus(target).getLen());
  }

  @Test
  public void linkStatusIsHadoopsOwn() throws Exception {
    java.nio.file.Path dir = tempDir();
    FileSystem fs = new Path(dir.toUri()).getFileSystem(conf());
    RawLocalFileSystem hadoops = new RawLocalFileSystem();
    hadoops.initialize(dir.toUri(), new Configuration());
    java.nio.file.Path real = Files.writeString(dir.resolve("real"), "x");
    Files.createSymbolicLink(dir.resolve("link"), real);
    for (String name : new String[] {"real", "link"}) {
      Path path = new Path(dir.resolve(name).toUri());
      FileStatus ours = fs.getFileLinkStatus(path);
      FileStatus theirs = hadoops.getFileLinkStatus(path);
      assertEquals(theirs.isSymlink(), ours.isSymlink(), name + " is a link or not");
      assertEquals(theirs.getLen(), ours.getLen(), name + "'s length");
      assertEquals(theirs.isFile(), ours.isFile(), name + " is a file or not");
    }
    assertFalse(fs.getFileLinkStatus(new Path(real.toUri())).isSymlink(), "a file is no link");
    boolean missing = false;
    try {
      fs.getFileLinkStatus(new Path(dir.resolve("nothing").toUri()));
    } catch (FileNotFoundException e) {
      missing = true;
    }
    assertTrue(missing, "a missing path is not found");
  }

  @Test
  public void aStickyBitGoesThroughHadoop() {
    assertEquals(null, ForklessRawLocalFileSystem.posix(new FsPermission((short) 01777)));
    assertEquals(
        PosixFilePermissions.fromString("rwxr-xr-x"),
        ForklessRawLocalFileSystem.posix(new FsPermission((short) 0755)));
  }

  private static String perms(java.nio.file.Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }
}
