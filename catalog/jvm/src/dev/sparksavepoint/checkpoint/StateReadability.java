package dev.sparksavepoint.checkpoint;

import dev.sparksavepoint.errors.Errors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.Path;

/**
 * Whether Spark's state reader can read an operator's state, and what Spark itself refuses: state
 * without a schema file (Spark before 3.1, {@link Operator#hasStateSchema}), transformWithState
 * state of a pre-release of Spark 4.0.0 ({@link PreReleaseTws}), and joins of state format 1,
 * whose outer joins Spark refuses to restart (SPARK-26154).
 */
public final class StateReadability {
  private static final String JOIN_FORMAT = "spark.sql.streaming.join.stateFormatVersion";

  private StateReadability() {}

  /**
   * Refuses to read or write state of {@code op} that Spark's reader cannot read, naming why
   * (the Spark release that wrote it, the format) and what to do.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_NO_STATE_SCHEMA,
   *     SAVEPOINT_REFUSED_BY_SPARK or SAVEPOINT_CORRUPT_FILE (a partition folder missing)
   */
  public static void check(Checkpoint ckpt, Operator op, String table, long batchId) {
    checkPartitions(ckpt, op, table, batchId);
    if (!op.hasStateSchema()) {
      throw Errors.noStateSchema(
          ckpt.location(),
          op.uid() + "." + table,
          op.stateSchemaFile(),
          ckpt.writtenBy(batchId),
          op.kind() == OperatorKind.JOIN && joinFormat1(ckpt, batchId));
    }
    String preRelease = preReleaseSchemaPath(ckpt, op, batchId);
    if (preRelease != null) {
      throw Errors.refusedBySpark(
          ckpt.location(),
          op.uid() + "." + table,
          "a pre-release build"
              + " of Spark 4.0.0 wrote its transformWithState state, in formats no Spark release"
              + " reads: its operator metadata names the state schema file under"
              + " stateSchemaFilePath ("
              + preRelease
              + "), where Spark 4.0 and later read a list,"
              + " stateSchemaFilePaths, and find none, and the schema file has no schema ids. Spark"
              + " 4.3's own state reader fails on it too (STDS_FAILED_TO_READ_STATE_SCHEMA, an"
              + " EOFException once the file is named). Rebuild the state from the query's input"
              + " with a Spark release, or read it with the build that wrote it.");
    }
  }

  /**
   * Whether an operator's partition folders ({@code state/<op>/<n>}) are those of an operator
   * whose input is one partition (a global limit: Spark's AllTuples): only {@code 0}, though its
   * metadata records the shuffle partition count. The catalog and the doctor count it as one.
   */
  public static boolean onePartition(java.util.Set<Integer> folders) {
    return folders.equals(java.util.Set.of(0));
  }

  /**
   * Refuses state with a partition folder missing: Spark's reader fails on a gap with an
   * internal error ("No continuous partitions"), and reads a state without its last partitions
   * as if it had fewer, silently ({@link #onePartition} aside).
   */
  private static void checkPartitions(Checkpoint ckpt, Operator op, String table, long batchId) {
    if (ckpt.planned()) return; // an upgrade's scratch checkpoint: a batch planned, never run
    Path dir = new Path(new Path(ckpt.root(), "state"), Long.toString(op.id()));
    java.util.Set<Integer> present = new java.util.HashSet<>();
    try {
      for (org.apache.hadoop.fs.FileStatus status : ckpt.fileSystem().listStatus(dir)) {
        String name = status.getPath().getName();
        if (status.isDirectory() && name.matches("\\d{1,9}")) present.add(Integer.parseInt(name));
      }
    } catch (IOException e) {
      return; // no state folder at all: the reader says what it misses
    }
    if (onePartition(present)) return;
    for (int p = 0; p < op.numPartitions(); p++) {
      if (!present.contains(p)) {
        throw Errors.missingPartition(
            ckpt.location(), op.uid() + "." + table, op.id(), p, op.numPartitions(), batchId);
      }
    }
  }

  /** True when Spark's state reader can read {@code op}'s state as of {@code batchId}. */
  public static boolean readable(Checkpoint ckpt, Operator op, long batchId) {
    return op.hasStateSchema() && preReleaseSchemaPath(ckpt, op, batchId) == null;
  }

  /** One line per join of state format 1 of batch {@code batchId}: its outer joins' fate. */
  static List<String> warnings(Checkpoint ckpt, long batchId) {
    List<String> lines = new ArrayList<>();
    for (Operator op : ckpt.operators(batchId)) {
      if (op.kind() == OperatorKind.JOIN && joinFormat1(ckpt, batchId)) {
        lines.add(
            op.uid()
                + " keeps join state format 1: Spark 3.0 and later refuse to restart"
                + " an outer join in that format (SPARK-26154: discard the checkpoint and rerun the"
                + " query), and restart an inner join.");
      }
    }
    return lines;
  }

  /** The schema path a pre-release of Spark 4.0.0 recorded for {@code op}, or null. */
  private static String preReleaseSchemaPath(Checkpoint ckpt, Operator op, long batchId) {
    if (op.kind() != OperatorKind.TWS) return null;
    try {
      return PreReleaseTws.schemaPath(
          ckpt.fileSystem(),
          new Path(new Path(ckpt.root(), "state"), Long.toString(op.id())),
          batchId);
    } catch (IOException | RuntimeException e) {
      return null; // Spark's reader reports what it cannot read
    }
  }

  /**
   * True when stream-stream joins of batch {@code batchId} keep join state format 1: recorded
   * so, or not recorded (Spark before 3.0, whose only format it was).
   */
  private static boolean joinFormat1(Checkpoint ckpt, long batchId) {
    String format = ckpt.recordedConf(batchId).get(JOIN_FORMAT);
    return format == null || format.equals("1");
  }
}
