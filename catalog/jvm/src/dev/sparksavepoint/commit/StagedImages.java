package dev.sparksavepoint.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.CheckpointLog;
import dev.sparksavepoint.checkpoint.FileDigests;
import dev.sparksavepoint.checkpoint.StoreFiles;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.errors.Errors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;

/**
 * Full images of a store's partitions (an INSERT OVERWRITE, {@code write.PartitionWriter} in
 * image mode), written by Spark's providers into the edit's staging folder
 * {@code <checkpoint>/_savepoint-tx-<id>/state/...}, where Spark never looks, and then moved
 * into the state folders under the names of version N+2 ({@link #moves}, {@link #publish}).
 *
 * <p>When the moves happen depends on how a version's image is found:
 *
 * <ul>
 *   <li>checkpoint format v2 (RocksDB with state checkpoint ids): an image is named by its
 *       unique id ({@code <N+2>_<id>.zip}), which only commits/N+1 refers to. The images are
 *       moved before commits/N+1 is written, which stays the last write; a failure removes what
 *       was moved ({@link CheckpointCommit#wrote}).
 *   <li>format v1: an image is found by its name alone ({@code <N+2>.zip},
 *       {@code <N+2>.snapshot}) and outranks the query's own files of that version. Moved before
 *       the commit, a kill between two moves would leave some partitions edited, and a query
 *       restarted on the checkpoint would re-run batch N+1 and then load that half edit without
 *       a word. So the moves are recorded first ({@value #MANIFEST} in the staging folder), then
 *       commits/N+1 is written, then the files move. A kill in between leaves batch N+1
 *       committed with some images still staged: Spark's query and every reader fail to load
 *       version N+2 (a file is missing; nothing half-edited is ever read) until the moves are
 *       completed by the next edit, or by {@code spark-savepoint recover}
 *       ({@link StagingFolders#removeAbandoned} calls {@link #complete}).
 * </ul>
 */
public final class StagedImages {
  /** The file recording the moves, in the staging folder. */
  static final String MANIFEST = "publish.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final BatchPlan plan;
  private final FileSystem fs;
  private final Path root;
  private final Path staging;

  private StagedImages(BatchPlan plan, FileSystem fs, Path root, Path staging) {
    this.plan = plan;
    this.fs = fs;
    this.root = root;
    this.staging = staging;
  }

  /** Makes a new staging folder for the images of {@code plan}'s edit (after its claim). */
  public static StagedImages create(BatchPlan plan) {
    Path root = new Path(plan.checkpoint());
    Path staging = new Path(root, StagingFolders.PREFIX + java.util.UUID.randomUUID());
    try {
      FileSystem fs = root.getFileSystem(plan.hadoopConf());
      StagingFolders.create(fs, staging);
      return new StagedImages(plan, fs, root, staging);
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "make the staging folder " + staging, e);
    }
  }

  /** The staging folder. */
  public Path folder() {
    return staging;
  }

  /**
   * Commits the edit whose tasks staged images of {@code spec} ({@code hdfs}: HDFS-backed) and
   * committed {@code commits}: records the moves and the edit's id ({@value #MANIFEST}), moves
   * the images and writes commits/N+1 in the order the checkpoint's format needs (see the class
   * comment), then removes the staging folder.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_WRITE_FAILED; when commits/N+1 is
   *     written and a move then fails, the message says to run {@code spark-savepoint recover}
   */
  public void commit(
      CheckpointCommit commit, List<PartitionCommit> commits, StoreSpec spec, boolean hdfs) {
    long batch = CheckpointLog.nextBatch(plan.batchId());
    boolean beforeCommit = plan.hasUniqueIds();
    List<Move> moves;
    try {
      moves = moves(fs, staging, spec, CheckpointLog.stateVersion(batch), hdfs);
      record(fs, staging, new Manifest(batch, commit.editId(), commit.what(), beforeCommit, moves));
      CrashPoint.reach("images-recorded");
      if (beforeCommit) {
        for (Path placed : publish(fs, root, staging, moves)) commit.wrote(placed);
      }
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "move the staged images into place", e);
    }
    commit.replacesWhole();
    commit.finish(commits);
    if (!beforeCommit) {
      CrashPoint.reach("images-committed");
      try {
        publish(fs, root, staging, moves);
      } catch (IOException e) {
        throw Errors.writeFailed(
            plan.checkpoint(),
            "move the images of committed batch "
                + batch
                + " into place (run spark-savepoint recover to complete it)",
            e);
      }
    }
    discard();
  }

  /** Removes the staging folder (the edit failed, or it is done). */
  public void discard() {
    try {
      fs.delete(staging, true);
    } catch (IOException e) {
      throw Errors.writeFailed(plan.checkpoint(), "remove the staging folder " + staging, e);
    }
  }

  /** One file to move: from the staging folder to the checkpoint, both relative. */
  record Move(String from, String to) {}

  /**
   * The moves that give {@code spec}'s partitions version {@code version} from their images
   * under {@code staging}'s {@code state} folder: every file of a RocksDB image (the shared SST
   * files first, the {@code .zip} last); of an HDFS-backed one (committed there as version 1 on
   * top of no state), its delta, which becomes the snapshot of {@code version}
   * ({@link StoreFiles#asSnapshot}).
   */
  static List<Move> moves(FileSystem fs, Path staging, StoreSpec spec, long version, boolean hdfs)
      throws IOException {
    List<Move> files = new ArrayList<>();
    List<Move> images = new ArrayList<>();
    for (int p = 0; p < spec.numPartitions(); p++) {
      String folder =
          new StateStoreId("state", spec.operatorId(), p, spec.storeName())
              .storeCheckpointLocation()
              .toString();
      List<String> staged;
      try {
        staged = FileDigests.list(fs, new Path(staging, folder), null);
      } catch (FileNotFoundException e) {
        continue; // a partition that got no task (emptied in place, as untouched)
      }
      for (String file : staged) {
        String name = new Path(file).getName();
        if (hdfs) {
          if (!StoreFiles.isDeltaOf(name, 1)) continue;
          String renamed = StoreFiles.asSnapshot(name, version);
          images.add(new Move(folder + "/" + file, folder + "/" + renamed));
        } else {
          (StoreFiles.isSnapshot(name) ? images : files)
              .add(new Move(folder + "/" + file, folder + "/" + file));
        }
      }
    }
    files.addAll(images);
    return files;
  }

  /**
   * What a staging folder's {@value #MANIFEST} records: the batch the edit claimed, its id
   * (which its commit carries, {@link EditToken}), what it edits, whether the moves happen
   * before the commit (format v2) or after it (v1), and the moves.
   */
  record Manifest(long batch, String editId, String edit, boolean beforeCommit, List<Move> moves) {}

  /**
   * Records {@code manifest} in the staging folder: from here on the edit is completed once
   * commits/{@code batch} exists and carries its id, and discarded otherwise.
   */
  static void record(FileSystem fs, Path staging, Manifest manifest) throws IOException {
    ObjectNode json = JSON.createObjectNode();
    json.put("batch", manifest.batch())
        .put("editId", manifest.editId())
        .put("edit", manifest.edit())
        .put("beforeCommit", manifest.beforeCommit());
    ArrayNode list = json.putArray("moves");
    for (Move m : manifest.moves()) list.addArray().add(m.from()).add(m.to());
    try (var out = fs.create(new Path(staging, MANIFEST), false)) {
      out.write(JSON.writeValueAsString(json).getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The manifest of {@code staging}, or null when it has none (it never got that far). */
  static Manifest read(FileSystem fs, Path staging) throws IOException {
    JsonNode json;
    try {
      json = JSON.readTree(CheckpointFiles.readAll(fs, new Path(staging, MANIFEST)));
    } catch (FileNotFoundException e) {
      return null;
    }
    List<Move> moves = new ArrayList<>();
    for (JsonNode m : json.path("moves")) moves.add(new Move(m.get(0).asText(), m.get(1).asText()));
    return new Manifest(
        json.path("batch").asLong(-1),
        json.path("editId").asText(""),
        json.path("edit").asText("an INSERT OVERWRITE"),
        json.path("beforeCommit").asBoolean(),
        moves);
  }

  /**
   * Moves the files into the checkpoint {@code root}; returns the files now in place. A move
   * already done (its source gone, its target there) is skipped, so a completion may repeat an
   * interrupted one.
   */
  static List<Path> publish(FileSystem fs, Path root, Path staging, List<Move> moves)
      throws IOException {
    List<Path> placed = new ArrayList<>();
    for (Move m : moves) {
      Path from = new Path(staging, m.from());
      Path to = new Path(root, m.to());
      if (!fs.exists(from) && fs.exists(to)) continue;
      fs.mkdirs(to.getParent());
      if (!fs.rename(from, to)) throw new IOException("could not move " + from + " to " + to);
      placed.add(to);
      CrashPoint.reach("image-moved");
    }
    return placed;
  }

  /**
   * Completes or discards the staged images of the abandoned staging folder {@code staging}
   * under checkpoint {@code root}, then removes the folder; returns what it did, one line. The
   * images are moved into place only when commits/b exists and carries the edit's own id:
   * never into a batch that a query (or another edit) committed, whose files they would
   * outrank. Otherwise they are dropped, with the images a format-v2 edit had moved before its
   * commit (named by the edit's own state checkpoint ids, which no commit refers to).
   */
  static String complete(FileSystem fs, Path root, Path staging) throws IOException {
    Manifest manifest = read(fs, staging);
    if (manifest == null) {
      fs.delete(staging, true);
      return "removed the staging folder "
          + staging.getName()
          + " of an edit that was"
          + " interrupted before it committed";
    }
    long batch = manifest.batch();
    String committedBy = EditToken.of(fs, root, batch);
    if (committedBy != null && committedBy.equals(manifest.editId())) {
      publish(fs, root, staging, manifest.moves());
      fs.delete(staging, true);
      return COMPLETED + batch + " into place";
    }
    if (manifest.beforeCommit()) {
      for (Move m : manifest.moves()) {
        Path to = new Path(root, m.to());
        if (!fs.exists(new Path(staging, m.from())) && fs.exists(to)) fs.delete(to, false);
      }
    }
    fs.delete(staging, true);
    return "discarded the staged images of "
        + manifest.edit()
        + ", interrupted before it"
        + " committed batch "
        + batch
        + ": "
        + (committedBy == null
            ? "the batch is not" + " committed"
            : (committedBy.isEmpty() ? "the streaming query" : "another edit")
                + " committed the batch, and its state stands");
  }

  /** How {@link #complete}'s line begins when it moved a committed edit's images. */
  public static final String COMPLETED = "moved the staged images of committed batch ";
}
