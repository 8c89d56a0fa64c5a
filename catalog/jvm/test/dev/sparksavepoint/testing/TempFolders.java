package dev.sparksavepoint.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.io.FileUtils;

/** Temporary folders for tests, removed when the test JVM exits. */
public final class TempFolders {
  private TempFolders() {}

  public static Path create(String prefix) throws IOException {
    Path folder = Files.createTempDirectory(prefix);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    FileUtils.deleteDirectory(folder.toFile());
                  } catch (IOException e) {
                    // a temporary folder left behind
                  }
                }));
    return folder;
  }
}
