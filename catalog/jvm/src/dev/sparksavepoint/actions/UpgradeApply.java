package dev.sparksavepoint.actions;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.OperatorKind;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.image.ImagePlan.StoreCopy;
import dev.sparksavepoint.image.ValueTransform;
import dev.sparksavepoint.upgrade.AggregateBuffers;
import dev.sparksavepoint.upgrade.OperatorFit;
import dev.sparksavepoint.upgrade.OperatorMatching.Pair;
import dev.sparksavepoint.upgrade.PlannedQuery;
import dev.sparksavepoint.upgrade.SchemaChange;
import dev.sparksavepoint.upgrade.UpgradeReport;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * Writes a new checkpoint that a changed query continues from, with the old checkpoint's state
 * as {@link UpgradeReport} matched it: kept and moved operators copied, changed ones rewritten
 * into the new value schema ({@link ValueTransform}: added aggregation buffers at Spark's start
 * value, widened columns cast, dropped columns left out), new operators empty, dropped ones left
 * out; the metadata and schema files of changed and new operators are the ones Spark wrote for
 * the new query. Source positions and logs are carried over, so no input is read twice or
 * lost. The engine is {@link CheckpointCopy}: the old checkpoint is not touched, the new one
 * is claimed first and committed last, and a failed upgrade leaves nothing.
 *
 * <p>Example: {@code UpgradeApply.run(spark, "/ckpt/v1", "/ckpt/v2", newDf, "update",
 * List.of(), false)}.
 */
public final class UpgradeApply {
  private UpgradeApply() {}

  /** Upgrades {@code checkpoint} into {@code target} for {@code query}; a one-line summary. */
  public static String run(
      SparkSession spark,
      String checkpoint,
      String target,
      Dataset<Row> query,
      String outputMode,
      List<String> maps,
      boolean allowDrop) {
    Configuration conf = spark.sessionState().newHadoopConf();
    Checkpoint old = Checkpoint.open(checkpoint, conf);
    if (!old.hasCommittedBatch()) throw Errors.noCommittedBatch(checkpoint);
    PlannedQuery planned = PlannedQuery.plan(spark, query, outputMode, old);
    try {
      UpgradeReport report = UpgradeReport.of(old, planned, maps, conf);
      check(checkpoint, report, allowDrop);
      List<String> moves = new ArrayList<>();
      List<String> drops = new ArrayList<>();
      List<StoreCopy> copies = new ArrayList<>();
      Set<Long> fromScratch = new HashSet<>();
      for (Pair pair : report.pairs()) {
        if (pair.neu() == null) {
          drops.add(pair.old().op().uid());
        } else if (pair.old() == null) {
          fromScratch.add(pair.neu().op().id());
          for (StoreSpec spec : pair.neu().stores()) copies.add(new StoreCopy(null, spec));
        } else {
          if (pair.old().op().id() != pair.neu().op().id()) {
            moves.add(pair.old().op().id() + "=" + pair.neu().op().id());
          }
          if (pair.fit().level() != OperatorFit.Level.EXACT) fromScratch.add(pair.neu().op().id());
          copies.addAll(copies(checkpoint, pair, planned.nodes().get(pair.neu().op().id())));
        }
      }
      CheckpointCopy.run(
          spark,
          old,
          report.batch(),
          target,
          CopyChanges.of(0, null, moves, drops),
          "upgrade '" + checkpoint + "'",
          null,
          null,
          new CheckpointCopy.Upgrade(copies, planned.scratch(), fromScratch));
      return "Upgraded batch "
          + report.batch()
          + " of '"
          + checkpoint
          + "' into '"
          + target
          + "' for the new query ("
          + summary(report)
          + "). Start the new query with"
          + " checkpointLocation '"
          + target
          + "'.";
    } finally {
      planned.delete();
    }
  }

  private static void check(String checkpoint, UpgradeReport report, boolean allowDrop) {
    if (report.verdict().equals(UpgradeReport.INCOMPATIBLE)) {
      List<String> why = new ArrayList<>(report.reasons());
      for (Pair p : report.pairs()) {
        if (p.fit() != null) {
          for (String r : p.fit().reasons()) why.add(p.old().op().uid() + ": " + r);
        }
      }
      throw Errors.upgradeRefused(
          checkpoint,
          "it is incompatible (" + String.join("; ", why) + "); see spark-savepoint upgrade check");
    }
    if (report.dropsState() && !allowDrop) {
      throw Errors.upgradeRefused(
          checkpoint,
          "it drops state ("
              + dropped(report)
              + "); pass"
              + " --allow-drop (allow_drop=True) to discard it");
    }
    for (Pair p : report.pairs()) {
      if (p.fit() == null || p.neu().op().kind() != OperatorKind.TWS) continue;
      for (String change : p.fit().changes()) {
        if (change.startsWith("state variable ") && change.contains(" column ")) {
          throw Errors.upgradeRefused(
              checkpoint,
              p.old().op().uid()
                  + ": "
                  + change
                  + "; a transformWithState state variable can be added or dropped, not changed");
        }
      }
    }
  }

  /** The stores of a kept, moved or changed operator, with their value transforms. */
  private static List<StoreCopy> copies(String checkpoint, Pair pair, SparkPlan node) {
    List<StoreCopy> copies = new ArrayList<>();
    for (int i = 0; i < pair.neu().stores().size(); i++) {
      StoreSpec from = pair.old().stores().get(i);
      StoreSpec to = pair.neu().stores().get(i);
      SchemaChange change =
          pair.fit().valueChanges().isEmpty() ? null : pair.fit().valueChanges().get(i);
      if (from.families() != null) {
        copies.add(new StoreCopy(from, to)); // state variables: copied by name
        continue;
      }
      if (change == null || change.unchanged()) {
        copies.add(
            new StoreCopy(
                from,
                new StoreSpec(
                    to.operatorId(),
                    to.storeName(),
                    to.numPartitions(),
                    to.keySchema(),
                    from.valueSchema(),
                    to.storeIndex())));
        continue;
      }
      copies.add(
          new StoreCopy(
              from,
              to,
              new ValueTransform(
                  from.valueSchema(),
                  to.valueSchema(),
                  change.sources(),
                  startValues(checkpoint, pair, change, node))));
    }
    return copies;
  }

  /** Per new value column: the start value of an added one (null for the others). */
  private static Object[] startValues(
      String checkpoint, Pair pair, SchemaChange change, SparkPlan node) {
    Object[] values = new Object[change.sources().length];
    List<Object> start = node == null ? null : AggregateBuffers.startValues(node);
    for (int i = 0; i < values.length; i++) {
      if (change.sources()[i] >= 0) continue;
      Object value =
          start == null || i >= start.size() ? AggregateBuffers.NO_CONSTANT : start.get(i);
      if (value == AggregateBuffers.NO_CONSTANT) {
        throw Errors.upgradeRefused(
            checkpoint,
            pair.old().op().uid()
                + ": value column "
                + i
                + " is new and has no constant start value (only an aggregation buffer of a"
                + " declarative aggregate such as count, sum, min or max has one)");
      }
      values[i] = value;
    }
    return values;
  }

  private static String dropped(UpgradeReport report) {
    List<String> what = new ArrayList<>();
    for (Pair p : report.pairs()) {
      if (p.neu() == null) what.add(p.old().op().uid());
      else if (p.fit() != null && p.fit().dropsState()) what.add(p.old().op().uid() + " columns");
    }
    return String.join(", ", what);
  }

  private static String summary(UpgradeReport report) {
    int kept = 0, changed = 0, added = 0, dropped = 0;
    for (Pair p : report.pairs()) {
      if (p.old() == null) added++;
      else if (p.neu() == null) dropped++;
      else if (p.fit().level() == OperatorFit.Level.EXACT) kept++;
      else changed++;
    }
    return kept
        + " operator(s) kept, "
        + changed
        + " changed, "
        + added
        + " new, "
        + dropped
        + " dropped";
  }
}
