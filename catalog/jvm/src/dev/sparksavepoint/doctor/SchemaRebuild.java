package dev.sparksavepoint.doctor;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.upgrade.PlannedQuery;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.SparkSession;

/**
 * State schema files a checkpoint lost, written again as the query's own plan writes them: the
 * query is planned as Spark plans a restart's first batch, with the confs the checkpoint
 * recorded ({@link PlannedQuery}, no input read), into a scratch checkpoint, whose schema file
 * of the same operator and store is the lost file's content. A v1 file ({@code
 * state/0/0/_metadata/schema}) has the same path there; a file operator metadata v2 names
 * ({@code state/0/_stateSchema/default/0_<uuid>}) is written under the name the metadata gives.
 */
final class SchemaRebuild {
  private SchemaRebuild() {}

  /** One {@link RepairPlan#WRITE} step per lost file the planned query has a schema for. */
  static List<RepairPlan.Step> steps(
      SparkSession spark,
      String location,
      Dataset<Row> query,
      String outputMode,
      List<String> lost) {
    Checkpoint checkpoint = Checkpoint.open(location, spark.sessionState().newHadoopConf());
    PlannedQuery planned = PlannedQuery.plan(spark, query, outputMode, checkpoint);
    try {
      Checkpoint scratch = planned.scratch();
      List<RepairPlan.Step> steps = new ArrayList<>();
      for (String file : lost) {
        Path written = counterpart(scratch.fileSystem(), scratch.root(), file);
        if (written == null) continue; // the query plans no such store: left for hands
        byte[] bytes = CheckpointFiles.readAll(scratch.fileSystem(), written);
        steps.add(
            new RepairPlan.Step(
                RepairPlan.WRITE,
                file,
                "the state schema the query (--query) writes for it, planned with the"
                    + " checkpoint's settings",
                bytes));
      }
      return steps;
    } catch (IOException e) {
      throw Errors.io(location, e);
    } finally {
      planned.delete();
    }
  }

  /** The planned query's schema file for the lost {@code file}, or null. */
  private static Path counterpart(FileSystem fs, Path scratch, String file) throws IOException {
    if (!file.contains("/_stateSchema/")) {
      Path same = new Path(scratch, file);
      return fs.exists(same) ? same : null;
    }
    Path folder = new Path(scratch, file.substring(0, file.lastIndexOf('/')));
    if (!fs.exists(folder)) return null;
    return Arrays.stream(fs.listStatus(folder))
        .filter(f -> f.isFile() && !f.getPath().getName().endsWith(".crc"))
        .map(FileStatus::getPath)
        .max(Comparator.comparing(Path::getName))
        .orElse(null);
  }
}
