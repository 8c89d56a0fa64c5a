package dev.sparksavepoint.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.upgrade.PlannedQuery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.SparkSession;

/**
 * State schema files and operator metadata a checkpoint lost, written again as the query's own
 * plan writes them: the query is planned as Spark plans a restart's first batch, with the confs
 * the checkpoint recorded ({@link PlannedQuery}, no input read), into a scratch checkpoint,
 * whose file of the same operator and store gives the content.
 *
 * <ul>
 *   <li>a v1 schema file ({@code state/0/0/_metadata/schema}): the scratch's at the same path;
 *   <li>a schema file operator metadata v2 names ({@code state/0/_stateSchema/default/0_<uuid>}):
 *       the scratch's of that store, under the name the metadata gives;
 *   <li>operator metadata v2 ({@code state/0/_metadata/v2/}): the scratch's entry, as of the
 *       batch the repaired checkpoint ends at, naming the checkpoint's own schema files.
 * </ul>
 */
final class SchemaRebuild {
  /** The finding classes a query's plan can fix. */
  static final Set<Check> REBUILT =
      Set.of(Check.SCHEMA_FILE_MISSING, Check.OPERATOR_METADATA_MISSING);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String METADATA_V2 = "/_metadata/v2";

  private SchemaRebuild() {}

  /** True when {@code step} writes the lost {@code file} (or an entry of that folder). */
  static boolean writes(RepairPlan.Step step, String file) {
    return step.file().equals(file) || step.file().startsWith(file + "/");
  }

  /**
   * One {@link RepairPlan#WRITE} step per lost file the planned query has a counterpart for;
   * {@code keptBatch}: the batch the repaired checkpoint ends at.
   */
  static List<RepairPlan.Step> steps(
      SparkSession spark,
      String location,
      Dataset<Row> query,
      String outputMode,
      List<String> lost,
      long keptBatch) {
    Checkpoint checkpoint = Checkpoint.open(location, spark.sessionState().newHadoopConf());
    PlannedQuery planned = PlannedQuery.plan(spark, query, outputMode, checkpoint);
    try {
      FileSystem scratchFs = planned.scratch().fileSystem();
      Path scratch = planned.scratch().root();
      List<RepairPlan.Step> steps = new ArrayList<>();
      for (String file : lost) {
        if (file.endsWith(METADATA_V2)) {
          Path entry = newest(scratchFs, new Path(scratch, file));
          if (entry == null) continue; // the query plans no such operator: left for hands
          steps.add(
              new RepairPlan.Step(
                  RepairPlan.WRITE,
                  file + "/" + Math.max(keptBatch, 0),
                  "the operator metadata the query (--query) writes, naming the checkpoint's"
                      + " own schema files",
                  repointed(CheckpointFiles.readAll(scratchFs, entry), checkpoint, file)));
          continue;
        }
        Path written = counterpart(scratchFs, scratch, file);
        if (written == null) continue;
        steps.add(
            new RepairPlan.Step(
                RepairPlan.WRITE,
                file,
                "the state schema the query (--query) writes for it, planned with the"
                    + " checkpoint's settings",
                CheckpointFiles.readAll(scratchFs, written)));
      }
      return steps;
    } catch (IOException e) {
      throw Errors.io(location, e);
    } finally {
      planned.delete();
    }
  }

  /**
   * A metadata v2 entry ({@code v2\n<json>}) whose stores name the checkpoint's own schema files
   * of each store ({@code <op>/_stateSchema/<store>/}, oldest first) instead of the scratch's.
   */
  private static byte[] repointed(byte[] entry, Checkpoint checkpoint, String metadataFolder)
      throws IOException {
    String[] lines = new String(entry, StandardCharsets.UTF_8).split("\n", 2);
    ObjectNode json = (ObjectNode) JSON.readTree(lines[1]);
    String operator = metadataFolder.substring(0, metadataFolder.length() - METADATA_V2.length());
    FileSystem fs = checkpoint.fileSystem();
    for (JsonNode store : json.path("stateStoreInfo")) {
      Path folder =
          new Path(
              checkpoint.root(), operator + "/_stateSchema/" + store.path("storeName").asText());
      ArrayNode paths = ((ObjectNode) store).putArray("stateSchemaFilePaths");
      if (!fs.exists(folder)) continue;
      Arrays.stream(fs.listStatus(folder))
          .filter(f -> f.isFile() && !f.getPath().getName().endsWith(".crc"))
          .map(f -> fs.makeQualified(f.getPath()))
          .sorted(Comparator.comparingLong(SchemaRebuild::batchOf))
          .forEach(p -> paths.add(p.toString()));
    }
    return (lines[0] + "\n" + JSON.writeValueAsString(json)).getBytes(StandardCharsets.UTF_8);
  }

  /** The batch a schema file of metadata v2 was written at ({@code 3_<uuid>}: 3). */
  private static long batchOf(Path schemaFile) {
    String name = schemaFile.getName();
    int underscore = name.indexOf('_');
    try {
      return Long.parseLong(underscore < 0 ? name : name.substring(0, underscore));
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }

  /** The planned query's schema file for the lost {@code file}, or null. */
  private static Path counterpart(FileSystem fs, Path scratch, String file) throws IOException {
    if (!file.contains("/_stateSchema/")) {
      Path same = new Path(scratch, file);
      return fs.exists(same) ? same : null;
    }
    return newest(fs, new Path(scratch, file.substring(0, file.lastIndexOf('/'))));
  }

  /** The last file of {@code folder} by name (checksum files aside), or null. */
  private static Path newest(FileSystem fs, Path folder) throws IOException {
    if (!fs.exists(folder)) return null;
    return Arrays.stream(fs.listStatus(folder))
        .filter(f -> f.isFile() && !f.getPath().getName().endsWith(".crc"))
        .map(FileStatus::getPath)
        .max(Comparator.comparing(Path::getName))
        .orElse(null);
  }
}
