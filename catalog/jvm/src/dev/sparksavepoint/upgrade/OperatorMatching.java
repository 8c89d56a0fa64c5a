package dev.sparksavepoint.upgrade;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.store.StoreBatch;
import dev.sparksavepoint.upgrade.OperatorFit.Level;
import dev.sparksavepoint.upgrade.OperatorFit.Side;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Which new operator receives each old operator's state: matched by kind, stores and state
 * schemas, not by position. {@code --map OLD=NEW} pairs come first; then exact fits, then fits
 * with changes, each preferring the same operator id. An old operator left over is dropped,
 * or incompatible when a new operator of its kind is left over too (its state was meant to
 * move there but cannot); a new operator left over starts empty.
 */
public final class OperatorMatching {
  /** One row of the report: old (or null) to new (or null), and how the state fits. */
  public record Pair(Side old, Side neu, OperatorFit fit) {}

  private OperatorMatching() {}

  /** The operators of {@code ckpt} as of batch {@code batch}, with their stores. */
  public static List<Side> sides(Checkpoint ckpt, long batch, Configuration hadoopConf) {
    List<StoreSpec> stores = StoreBatch.allStores(ckpt, batch, hadoopConf);
    List<Side> sides = new ArrayList<>();
    for (Operator op : ckpt.operators(batch)) {
      List<StoreSpec> own = new ArrayList<>();
      for (String name : op.storeNames()) {
        for (StoreSpec s : stores) {
          if (s.operatorId() == op.id() && s.storeName().equals(name)) own.add(s);
        }
      }
      sides.add(new Side(op, own));
    }
    return sides;
  }

  /**
   * Pairs {@code olds} with {@code news}; {@code maps}: "OLD=NEW" items naming operators by
   * id or uid ({@code agg_0=1}).
   */
  public static List<Pair> match(
      String location, List<Side> olds, List<Side> news, List<String> maps) {
    Map<Side, Pair> byOld = new LinkedHashMap<>();
    Map<Side, Side> taken = new LinkedHashMap<>();
    for (String item : maps) {
      String[] parts = item.split("=", 2);
      if (parts.length != 2) {
        throw Errors.badArguments(
            location, "--map takes OLD=NEW (e.g. agg_0=1), not '" + item + "'");
      }
      Side old = find(location, olds, parts[0], "checkpoint");
      Side neu = find(location, news, parts[1], "new query");
      OperatorFit fit = OperatorFit.of(old, neu);
      byOld.put(old, new Pair(old, neu, fit));
      taken.put(neu, old);
    }
    for (Level wanted : List.of(Level.EXACT, Level.CHANGES)) {
      for (boolean sameId : List.of(true, false)) {
        for (Side old : olds) {
          if (byOld.containsKey(old)) continue;
          for (Side neu : news) {
            if (taken.containsKey(neu) || sameId && neu.op().id() != old.op().id()) continue;
            OperatorFit fit = OperatorFit.of(old, neu);
            if (fit.level() != wanted) continue;
            byOld.put(old, new Pair(old, neu, fit));
            taken.put(neu, old);
            break;
          }
        }
      }
    }
    List<Pair> pairs = new ArrayList<>();
    for (Side old : olds) {
      Pair pair = byOld.get(old);
      if (pair == null) pair = leftOver(old, news, taken);
      pairs.add(pair);
    }
    for (Side neu : news) {
      if (!taken.containsKey(neu)) pairs.add(new Pair(null, neu, null));
    }
    return pairs;
  }

  /** An old operator no new one takes: incompatible with a left-over one of its kind. */
  private static Pair leftOver(Side old, List<Side> news, Map<Side, Side> taken) {
    for (Side neu : news) {
      if (taken.containsKey(neu)) continue;
      OperatorFit fit = OperatorFit.of(old, neu);
      if (fit.level() == Level.INCOMPATIBLE) {
        taken.put(neu, old);
        return new Pair(old, neu, fit);
      }
    }
    return new Pair(old, null, null);
  }

  private static Side find(String location, List<Side> sides, String name, String where) {
    for (Side side : sides) {
      if (side.op().answersTo(name)) return side;
    }
    throw Errors.badArguments(
        location,
        "--map: the "
            + where
            + " has no operator '"
            + name
            + "'; its operators: "
            + sides.stream().map(s -> s.op().uid()).toList());
  }
}
