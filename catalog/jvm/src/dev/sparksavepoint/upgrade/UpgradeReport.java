package dev.sparksavepoint.upgrade;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.upgrade.OperatorFit.Level;
import dev.sparksavepoint.upgrade.OperatorMatching.Pair;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * What upgrading a checkpoint to a new query does, operator by operator, and the verdict:
 * {@code compatible} (the new query restarts on the checkpoint as it is), {@code changes}
 * (an upgrade writes a new checkpoint the new query continues from: state moves to other
 * operator ids, value columns are added or widened, new operators start empty, state is
 * dropped), or {@code incompatible} (some state cannot move: {@code reasons} says why).
 */
public record UpgradeReport(
    String checkpoint,
    long batch,
    List<Pair> pairs,
    Map<Long, SparkPlan> planned,
    int oldSources,
    int newSources,
    List<String> misplaced) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static final String COMPATIBLE = "compatible";
  public static final String CHANGES = "changes";
  public static final String INCOMPATIBLE = "incompatible";

  /**
   * Why the upgrade cannot be done, beyond the operators' own reasons (or empty): other
   * sources, or kept state the new query would look for elsewhere ({@link PlacementFit}).
   */
  public List<String> reasons() {
    List<String> reasons = new java.util.ArrayList<>(misplaced);
    if (oldSources != newSources) {
      reasons.add(
          "the new query reads "
              + newSources
              + " source(s), the checkpoint's "
              + oldSources
              + ": Spark pairs a checkpoint's source positions with the query's"
              + " sources by their order, so the sources must stay the same");
    }
    return reasons;
  }

  public String verdict() {
    if (!reasons().isEmpty()) return INCOMPATIBLE;
    boolean same = true;
    for (Pair p : pairs) {
      if (p.fit() != null && p.fit().level() == Level.INCOMPATIBLE) return INCOMPATIBLE;
      if (p.old() == null || p.neu() == null) {
        same = false;
      } else if (p.fit().level() != Level.EXACT || p.old().op().id() != p.neu().op().id()) {
        same = false;
      }
    }
    return same ? COMPATIBLE : CHANGES;
  }

  /** True when an upgrade discards state (an operator, value columns, state variables). */
  public boolean dropsState() {
    return pairs.stream()
        .anyMatch(
            p -> p.neu() == null && p.old() != null || p.fit() != null && p.fit().dropsState());
  }

  /** The report as JSON: verdict, drops_state and one entry per operator. */
  public String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("checkpoint", checkpoint);
    root.put("batch", batch);
    root.put("verdict", verdict());
    root.put("drops_state", dropsState());
    root.set("reasons", JSON.valueToTree(reasons()));
    ArrayNode rows = root.putArray("operators");
    for (Pair p : pairs) rows.add(row(p));
    return root.toString();
  }

  private ObjectNode row(Pair p) {
    ObjectNode row = JSON.createObjectNode();
    row.put("old", p.old() == null ? null : p.old().op().uid());
    row.put("new", p.neu() == null ? null : p.neu().op().uid());
    row.put("operator", (p.neu() != null ? p.neu() : p.old()).op().name());
    row.put("action", action(p));
    ArrayNode changes = row.putArray("changes");
    if (p.fit() != null) {
      for (String line : withInitialValues(p)) changes.add(line);
    }
    ArrayNode reasons = row.putArray("reasons");
    if (p.fit() != null) p.fit().reasons().forEach(reasons::add);
    return row;
  }

  private static String action(Pair p) {
    if (p.old() == null) return "new";
    if (p.neu() == null) return "drop";
    return switch (p.fit().level()) {
      case EXACT -> p.old().op().id() == p.neu().op().id() ? "keep" : "move";
      case CHANGES -> "change";
      default -> "incompatible";
    };
  }

  /** The fit's change lines, an added aggregation buffer's with the value it starts from. */
  private List<String> withInitialValues(Pair p) {
    List<String> lines = new ArrayList<>(p.fit().changes());
    SparkPlan node = planned.get(p.neu().op().id());
    List<String> initial =
        node == null || !p.neu().op().kind().hasValueNames()
            ? null
            : AggregateBuffers.initialValues(node);
    if (initial == null || p.fit().valueChanges().isEmpty()) return lines;
    SchemaChange value = p.fit().valueChanges().get(0);
    if (value == null) return lines;
    int added = 0;
    for (int i = 0; i < value.sources().length; i++) {
      if (value.sources()[i] >= 0) continue;
      String start = i < initial.size() ? initial.get(i) : null;
      String line = "value column " + value.added().get(added++) + " added";
      int at = lines.indexOf(line);
      if (at >= 0) {
        lines.set(
            at, line + ", starting as " + (start == null ? "(no constant start value)" : start));
      }
    }
    return lines;
  }

  /** Plans {@code planned} against {@code old}'s last batch and matches their operators. */
  public static UpgradeReport of(
      Checkpoint old,
      PlannedQuery planned,
      List<String> maps,
      org.apache.hadoop.conf.Configuration hadoopConf) {
    long batch = old.lastCommitted();
    List<OperatorFit.Side> olds = OperatorMatching.sides(old, batch, hadoopConf);
    List<OperatorFit.Side> news = OperatorMatching.sides(planned.scratch(), 0, hadoopConf);
    int oldSources =
        (int)
            old.sourcePositions(batch).stream()
                .map(dev.sparksavepoint.checkpoint.SourcePositions.Position::sourceId)
                .distinct()
                .count();
    List<Pair> pairs = OperatorMatching.match(old.location(), olds, news, maps);
    return new UpgradeReport(
        old.location(),
        batch,
        pairs,
        planned.nodes(),
        oldSources,
        planned.sources(),
        PlacementFit.misfits(old, batch, pairs, planned));
  }
}
