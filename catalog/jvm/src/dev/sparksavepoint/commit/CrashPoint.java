package dev.sparksavepoint.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;

/**
 * Named points of a write's commit protocol, for tests of what a crash there leaves. Off unless
 * a system property is set; two ways in:
 *
 * <ul>
 *   <li>{@value #PROPERTY} names a point ({@code point}, or {@code point#k} for its k-th time):
 *       this JVM halts there as abruptly as {@code kill -9} ({@code Runtime.halt}: no finally
 *       blocks, no shutdown hooks). tests/system/test_write_crash.py sets it in a writer process
 *       it started for the purpose. {@code point@<local file>} halts only the one JVM that
 *       creates that file first, and none while its folder does not exist: the executors of a
 *       cluster all carry the property, the test arms it by making the folder, and one task
 *       dies once (tests/system/test_remote_storage.py);
 *   <li>{@value #SNAPSHOTS} is {@code <local folder>=<snapshot folder>}: at every point the
 *       folder (a local checkpoint) is copied, byte for byte, into
 *       {@code <snapshot folder>/<nn>-<point>[-<k>]}, and the write goes on. Each copy holds
 *       exactly the files a kill at that point would leave (tests/system/test_crash_points.py).
 * </ul>
 */
public final class CrashPoint {
  public static final String PROPERTY = "dev.sparksavepoint.haltAt";
  public static final String SNAPSHOTS = "dev.sparksavepoint.crashSnapshots";

  /** Times each point was reached in this JVM, and all points together (snapshot order). */
  private static final Map<String, Integer> REACHED = new HashMap<>();

  private static int snapshots;

  private CrashPoint() {}

  /** Halts the JVM, or snapshots the checkpoint, when {@code point} is asked for. */
  public static void reach(String point) {
    String halt = System.getProperty(PROPERTY);
    String snapshot = System.getProperty(SNAPSHOTS);
    if (halt == null && snapshot == null) return;
    int times;
    synchronized (REACHED) {
      times = REACHED.merge(point, 1, Integer::sum);
    }
    String marker = null;
    if (halt != null && halt.contains("@")) {
      marker = halt.substring(halt.indexOf('@') + 1);
      halt = halt.substring(0, halt.indexOf('@'));
    }
    if ((point.equals(halt) || (point + "#" + times).equals(halt))
        && (marker == null || firstToCreate(marker))) {
      System.err.println("spark-savepoint: halting at crash point '" + halt + "' (test)");
      Runtime.getRuntime().halt(137);
    }
    if (snapshot != null) snapshot(snapshot, times > 1 ? point + "-" + times : point);
  }

  /**
   * True for the one caller, across JVMs, that creates local file {@code marker}; false when it
   * exists or its folder does not (the point is not armed).
   */
  private static boolean firstToCreate(String marker) {
    try {
      return new java.io.File(marker).createNewFile();
    } catch (IOException e) {
      return false;
    }
  }

  private static synchronized void snapshot(String spec, String name) {
    int eq = spec.lastIndexOf('=');
    Path from = Path.of(spec.substring(0, eq));
    Path to = Path.of(spec.substring(eq + 1), String.format("%02d-%s", snapshots++, name));
    if (!Files.exists(from)) {
      try {
        Files.createDirectories(to);
      } catch (IOException e) {
        throw new UncheckedIOException("crash point snapshot " + name, e);
      }
      return;
    }
    try {
      Files.walkFileTree(
          from,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
                throws IOException {
              Files.createDirectories(to.resolve(from.relativize(dir).toString()));
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              try {
                Files.copy(
                    file,
                    to.resolve(from.relativize(file).toString()),
                    StandardCopyOption.COPY_ATTRIBUTES);
              } catch (NoSuchFileException e) {
                // renamed or removed by a task meanwhile: as a kill a moment later would find it
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE; // the same
              throw e;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("crash point snapshot " + name, e);
    }
  }
}
