package dev.sparksavepoint.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The query's logs: {@code metadata}, {@code offsets/} and {@code commits/}. Finds gaps and
 * disorder, a commit without its offsets, an uncommitted tail, unreadable or wrongly shaped
 * entries and entries of a newer log version; returns what the state checks build on.
 */
final class LogChecks {
  /** The newest log version Spark writes (offsets v1; commits v1, v2 with checkpoint format 2). */
  static final int NEWEST_LOG_VERSION = 2;

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What the logs say of the last committed batch.
   *
   * @param lastCommitted the last batch of the commit log (whose state the files hold), -1
   *     when none
   * @param lastPlanned the last batch of the offset log, -1 when none
   * @param conf the settings its offsets entry (or the last readable one before it) records;
   *     empty when none reads
   * @param uniqueIds its commit's state checkpoint ids (format v2), or null
   * @param idsKnown false when its commit does not read: format 2 file names cannot be checked
   * @param idsByBatch every readable commit's state checkpoint ids (format 2), by batch
   */
  record Facts(
      long lastCommitted,
      long lastPlanned,
      Map<String, String> conf,
      Map<Long, String[][]> uniqueIds,
      boolean idsKnown,
      Map<Long, Map<Long, String[][]>> idsByBatch) {}

  private final FileSystem fs;
  private final Path root;
  private final CheckpointTree tree;
  private final Consumer<Finding> found;

  LogChecks(FileSystem fs, Path root, CheckpointTree tree, Consumer<Finding> found) {
    this.fs = fs;
    this.root = root;
    this.tree = tree;
    this.found = found;
  }

  Facts run() {
    TreeSet<Long> offsets = entries(CheckpointLog.OFFSETS);
    TreeSet<Long> commits = entries(CheckpointLog.COMMITS);
    checkMetadata(!offsets.isEmpty() || !commits.isEmpty());
    gaps(CheckpointLog.OFFSETS, offsets);
    gaps(CheckpointLog.COMMITS, commits);
    long lastPlanned = offsets.isEmpty() ? -1 : offsets.last();
    for (long batch : commits.tailSet(lastPlanned, false)) {
      found.accept(
          Finding.of(
              Check.COMMIT_WITHOUT_OFFSETS,
              batch,
              null,
              null,
              "offsets/" + batch,
              "commits/"
                  + batch
                  + " records batch "
                  + batch
                  + " as committed, but offsets/"
                  + batch
                  + ", what the batch read, is missing"));
    }
    long lastCommitted = commits.isEmpty() ? -1 : commits.last();
    tail(offsets, lastCommitted);
    Map<Long, JsonNode> offsetLines = read(CheckpointLog.OFFSETS, offsets, lastCommitted);
    Map<Long, JsonNode> commitLines = read(CheckpointLog.COMMITS, commits, lastCommitted);
    Long confBatch = new TreeSet<>(offsetLines.keySet()).floor(lastCommitted);
    return new Facts(
        lastCommitted,
        offsets.isEmpty() ? -1 : offsets.last(),
        conf(confBatch == null ? null : offsetLines.get(confBatch)),
        ids(commitLines.get(lastCommitted)),
        lastCommitted < 0 || commitLines.containsKey(lastCommitted),
        idsByBatch(commitLines));
  }

  private TreeSet<Long> entries(String log) {
    TreeSet<Long> batches = new TreeSet<>();
    for (String name : tree.children(log)) {
      if (name.matches("\\d+") && !tree.isFolder(log + "/" + name))
        batches.add(Long.parseLong(name));
    }
    return batches;
  }

  private void checkMetadata(boolean hasBatches) {
    if (!tree.has("metadata")) {
      if (hasBatches) {
        found.accept(
            Finding.of(
                Check.METADATA_MISSING,
                null,
                null,
                null,
                "metadata",
                "the metadata file (the query id) is missing, and the logs hold batches"));
      }
      return;
    }
    try {
      String text = new String(read("metadata"), StandardCharsets.UTF_8);
      JsonNode id = JSON.readTree(text.lines().findFirst().orElse("")).path("id");
      if (!id.isTextual()) throw new IOException("it has no query id (\"id\")");
      java.util.UUID.fromString(id.asText());
    } catch (IOException | RuntimeException e) {
      found.accept(
          Finding.of(
              Check.METADATA_UNREADABLE,
              null,
              null,
              null,
              "metadata",
              "the metadata file cannot be read: " + reason(e)));
    }
  }

  /**
   * Entries missing between a log's first and last; an error where the query's restart reads it:
   * Spark resumes from the last offsets entry and the one before it ("batch N doesn't exist").
   */
  private void gaps(String log, TreeSet<Long> batches) {
    if (batches.isEmpty()) return;
    boolean offsets = log.equals(CheckpointLog.OFFSETS);
    for (long b = batches.first(); b < batches.last(); b++) {
      if (!batches.contains(b)) {
        String between = " is missing between " + log + "/" + batches.first() + " and " + log + "/";
        Finding gap =
            Finding.of(
                Check.LOG_GAP,
                b,
                null,
                null,
                log + "/" + b,
                log + "/" + b + between + batches.last());
        boolean readByRestart = offsets && b == batches.last() - 1;
        found.accept(
            readByRestart
                ? new Finding(
                    gap.check(),
                    Check.Severity.ERROR,
                    b,
                    null,
                    null,
                    gap.file(),
                    gap.message() + ": the query's restart reads it with the last one, and fails",
                    gap.fix())
                : gap);
      }
    }
  }

  private void tail(TreeSet<Long> offsets, long lastCommitted) {
    List<Long> planned = offsets.tailSet(lastCommitted, false).stream().toList();
    if (planned.size() == 1) {
      long b = planned.get(0);
      found.accept(
          Finding.of(
              Check.UNCOMMITTED_BATCH,
              b,
              null,
              null,
              "offsets/" + b,
              "batch "
                  + b
                  + " is planned and not committed: the query stopped or was stopped"
                  + " during it"));
    } else if (planned.size() > 1) {
      long b = planned.get(1);
      found.accept(
          Finding.of(
              Check.UNCOMMITTED_BATCHES,
              b,
              null,
              null,
              "offsets/" + b,
              planned.size()
                  + " batches are planned after the last committed batch "
                  + lastCommitted
                  + " ("
                  + planned
                  + "): Spark plans a batch only after"
                  + " committing the one before"));
    }
  }

  /**
   * Reads every entry of {@code log}; the JSON line of each readable one. An unreadable entry
   * is an error when a restart reads it (the last commit, the last two offsets), else a warning.
   */
  private Map<Long, JsonNode> read(String log, TreeSet<Long> batches, long lastCommitted) {
    Map<Long, JsonNode> lines = new HashMap<>();
    boolean offsets = log.equals(CheckpointLog.OFFSETS);
    long last = batches.isEmpty() ? -1 : batches.last();
    for (long b : batches) {
      String file = log + "/" + b;
      boolean readOnRestart = offsets ? b >= Math.min(last, lastCommitted) - 1 : b == lastCommitted;
      try {
        byte[] bytes = read(file);
        int version = version(bytes);
        if (version > NEWEST_LOG_VERSION) {
          found.accept(
              Finding.of(
                  Check.LOG_ENTRY_NEWER,
                  b,
                  null,
                  null,
                  file,
                  file
                      + " is of log version v"
                      + version
                      + ", newer than the v1 and v2 Spark"
                      + " 4.3 writes: a newer Spark release wrote it"));
          continue;
        }
        JsonNode line = CheckpointLog.parseEntry(bytes);
        if (!line.isObject()) throw new IOException("its JSON line is not an object");
        if (offsets) checkSources(bytes);
        else CheckpointLog.stateUniqueIds(line);
        lines.put(b, line);
      } catch (IOException | RuntimeException e) {
        Finding finding =
            Finding.of(
                Check.LOG_ENTRY_UNREADABLE,
                b,
                null,
                null,
                file,
                file + " cannot be read: " + reason(e));
        found.accept(readOnRestart ? finding : finding.at(Check.Severity.WARNING));
      }
    }
    return lines;
  }

  /** The source lines of an offsets entry: one per source, each "-" or JSON. */
  private static void checkSources(byte[] entry) throws IOException {
    List<String> lines = new String(entry, StandardCharsets.UTF_8).lines().skip(2).toList();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).trim();
      if (line.isEmpty() || line.equals("-")) continue;
      try {
        JSON.readTree(line);
      } catch (IOException e) {
        throw new IOException("the offset of source " + i + " is not JSON: " + line, e);
      }
    }
  }

  private static int version(byte[] entry) {
    String first = new String(entry, StandardCharsets.UTF_8).lines().findFirst().orElse("");
    return first.matches("v\\d{1,9}") ? Integer.parseInt(first.substring(1)) : 0;
  }

  private byte[] read(String relative) throws IOException {
    return CheckpointFiles.readAsSpark(fs, new Path(root, relative), () -> {});
  }

  private static Map<String, String> conf(JsonNode offsets) {
    Map<String, String> conf = new HashMap<>();
    if (offsets != null) {
      offsets
          .path("conf")
          .fields()
          .forEachRemaining(e -> conf.put(e.getKey(), e.getValue().asText()));
    }
    return conf;
  }

  private static Map<Long, Map<Long, String[][]>> idsByBatch(Map<Long, JsonNode> commits) {
    Map<Long, Map<Long, String[][]>> ids = new HashMap<>();
    commits.forEach((batch, line) -> ids.put(batch, ids(line)));
    return ids;
  }

  private static Map<Long, String[][]> ids(JsonNode commit) {
    try {
      return commit == null ? null : CheckpointLog.stateUniqueIds(commit);
    } catch (IOException e) {
      return null; // reported as unreadable
    }
  }

  static String reason(Throwable e) {
    String message = e.getMessage();
    return message == null ? e.getClass().getSimpleName() : message.lines().findFirst().orElse("");
  }
}
