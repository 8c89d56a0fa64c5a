package dev.sparksavepoint.checkpoint;

import java.io.EOFException;
import java.io.IOException;

/**
 * Reads of a checkpoint retried when the connection to its file system broke under them: a
 * command's first read after HDFS's NameNode restarted meets the connection the client kept
 * from before ({@code EOFException} "... destination host is ..."), and the next call
 * reconnects. Measured on a MiniDFSCluster (tests/system/test_remote_storage.py): without the
 * retry, the first edit after a NameNode restart failed with SAVEPOINT_IO. Other errors, a
 * truncated file's {@code EOFException} included, are not retried.
 */
final class BrokenConnections {
  private static final int ATTEMPTS = 4;
  private static final long PAUSE_MS = 500;

  private BrokenConnections() {}

  /** A read that may throw Hadoop's {@link IOException}. */
  interface Read<T> {
    T get() throws IOException;
  }

  /** {@code read}, again after a pause (at most {@value #ATTEMPTS} times) while it fails so. */
  static <T> T retried(Read<T> read) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return read.get();
      } catch (IOException e) {
        if (attempt >= ATTEMPTS || !broken(e)) throw e;
        try {
          Thread.sleep(PAUSE_MS * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** Whether {@code error} says the connection to a server broke or could not be made. */
  static boolean broken(Throwable error) {
    for (Throwable t = error; t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof java.net.SocketException) return true;
      if (t instanceof EOFException
          && t.getMessage() != null
          && t.getMessage().contains("destination host is")) {
        return true;
      }
    }
    return false;
  }
}
