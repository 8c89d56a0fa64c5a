package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertContains;
import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertFalse;
import static dev.sparksavepoint.testing.Assert.assertThrows;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.TempFolders;
import dev.sparksavepoint.testing.Test;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.AnalysisException;

/** {@code _savepoint/value-names.json}: written whole, rewritten only when the names change. */
public class ValueNamesTest {
  private static final Map<Long, ValueNames.Columns> NAMES =
      Map.of(0L, new ValueNames.Columns(List.of("count", "sum"), Arrays.asList("cnt", null)));

  private static Path checkpoint() throws IOException {
    Path root = TempFolders.create("value-names-test");
    Files.createDirectories(root.resolve("offsets"));
    Files.createDirectories(root.resolve("commits"));
    return root;
  }

  private static Map<Long, ValueNames.Columns> read(Path root) {
    return ValueNames.read(Checkpoint.open(root.toString(), new Configuration()));
  }

  private static boolean record(Path root, Map<Long, ValueNames.Columns> names) throws IOException {
    return ValueNames.record(
        new org.apache.hadoop.fs.Path(root.toUri()), names, new Configuration());
  }

  @Test
  public void recordsOnlyWhatChanged() throws IOException {
    Path root = checkpoint();
    assertTrue(read(root).isEmpty(), "nothing recorded: no names");
    assertTrue(record(root, NAMES), "first record writes");
    assertEquals(NAMES, read(root));
    Path file = root.resolve(ValueNames.FILE);
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(1000));
    assertFalse(record(root, NAMES), "the same names: not written again");
    assertEquals(1000L, Files.getLastModifiedTime(file).toMillis());
    Map<Long, ValueNames.Columns> renamed =
        Map.of(0L, new ValueNames.Columns(List.of("count", "sum"), List.of("n", "total")));
    assertTrue(record(root, renamed), "other names replace the file");
    assertEquals(renamed, read(root));
    try (Stream<Path> files = Files.list(file.getParent())) {
      assertEquals(
          List.of(".value-names.json.crc", "value-names.json"),
          files.map(p -> p.getFileName().toString()).sorted().toList());
    }
  }

  @Test
  public void aDamagedFileIsAnErrorThatSaysWhatToDo() throws IOException {
    Path root = checkpoint();
    Files.createDirectories(root.resolve("_savepoint"));
    Files.writeString(root.resolve(ValueNames.FILE), "{\"0\": {\"buffers\": [\"count\"]}}");
    AnalysisException error = assertThrows(AnalysisException.class, () -> read(root));
    assertEquals("SAVEPOINT_CORRUPT_FILE", error.getCondition());
    assertContains("Remove the file (value columns keep Spark's names)", error.getMessage());
    assertTrue(record(root, NAMES), "a damaged file is replaced");
    assertEquals(NAMES, read(root));
  }
}
