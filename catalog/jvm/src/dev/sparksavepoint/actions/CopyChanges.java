package dev.sparksavepoint.actions;

import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.OperatorUids;
import dev.sparksavepoint.errors.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a take or restore changes on the way, as the user gives it, resolved against the
 * operators of the source batch:
 * <ul>
 *   <li>{@code partitions}: the new partition count (0: keep);
 *   <li>{@code provider}: {@code hdfs} or {@code rocksdb} (null: keep);
 *   <li>{@code uids}: {@code X=Y} items, X an operator (id, generated or user uid): Y an operator
 *       id or generated uid ({@code 1}, {@code agg_1}) moves its state there; any other name
 *       ({@code orders_by_user}) becomes its user uid;
 *   <li>{@code drops}: operators whose state is left out.
 * </ul>
 *
 * <p>Example: {@code CopyChanges.of(8, "rocksdb", List.of("0=orders", "agg_1=2"), List.of())}
 */
public record CopyChanges(int partitions, String provider, List<String> uids, List<String> drops) {
  public static final String HDFS =
      "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider";
  public static final String ROCKSDB =
      "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider";

  /** No change: a copy as is (a savepoint take). */
  public static CopyChanges none(List<String> uids) {
    return new CopyChanges(0, null, uids == null ? List.of() : uids, List.of());
  }

  public static CopyChanges of(
      int partitions, String provider, List<String> uids, List<String> drops) {
    return new CopyChanges(
        partitions,
        provider == null || provider.isBlank() ? null : provider,
        uids == null ? List.of() : List.copyOf(uids),
        drops == null ? List.of() : List.copyOf(drops));
  }

  /** The provider class a short name or class name stands for. */
  static String providerClass(String path, String provider) {
    return switch (provider.toLowerCase(Locale.ROOT)) {
      case "hdfs", "hdfsbacked", HDFS_LOWER -> HDFS;
      case "rocksdb", ROCKSDB_LOWER -> ROCKSDB;
      default ->
          throw Errors.badArguments(
              path, "Unknown state store provider '" + provider + "': use hdfs or rocksdb");
    };
  }

  private static final String HDFS_LOWER =
      "org.apache.spark.sql.execution.streaming.state.hdfsbackedstatestoreprovider";
  private static final String ROCKSDB_LOWER =
      "org.apache.spark.sql.execution.streaming.state.rocksdbstatestoreprovider";

  /** The source operators resolved: which are kept, under which id and user uid. */
  record Resolved(Map<Long, Long> ids, Map<Long, String> userUids) {
    /** The target id of a kept source operator, or null when it is dropped. */
    Long target(long sourceId) {
      return ids.get(sourceId);
    }
  }

  /**
   * Resolves the changes against {@code operators} (with their user uids {@code known}).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_BAD_ARGUMENTS when an item names
   *     no operator, is malformed, or two operators would share an id or uid
   */
  Resolved resolve(String path, List<Operator> operators, Map<Long, String> known) {
    if (partitions < 0) throw Errors.badArguments(path, "--partitions must be at least 1");
    Map<Long, Long> ids = new LinkedHashMap<>();
    for (Operator op : operators) ids.put(op.id(), op.id());
    Map<Long, String> names = new TreeMap<>(known);
    for (String drop : drops) ids.remove(find(path, operators, known, drop).id());
    for (String item : uids) {
      int eq = item.indexOf('=');
      if (eq <= 0 || eq == item.length() - 1) {
        throw Errors.badArguments(
            path, "--uid takes OPERATOR=NEW_ID or OPERATOR=NAME, not '" + item + "'");
      }
      Operator op = find(path, operators, known, item.substring(0, eq).trim());
      String to = item.substring(eq + 1).trim();
      if (!ids.containsKey(op.id())) {
        throw Errors.badArguments(
            path, "--uid " + item + " names " + op.uid() + ", which is dropped");
      }
      if (OperatorUids.isGenerated(to)) {
        ids.put(op.id(), Long.parseLong(to.substring(to.lastIndexOf('_') + 1)));
      } else if (OperatorUids.isUserUid(to)) {
        names.put(op.id(), to);
      } else {
        throw Errors.badArguments(
            path,
            "--uid "
                + item
                + ": '"
                + to
                + "' cannot be the operator's new id or name: "
                + OperatorUids.whyNotUserUid(to));
      }
    }
    return new Resolved(ids, checked(path, ids, names));
  }

  /** User uids keyed by target id; fails on two operators with one id or one uid. */
  private static Map<Long, String> checked(
      String path, Map<Long, Long> ids, Map<Long, String> names) {
    Map<Long, Long> byTarget = new HashMap<>();
    for (Map.Entry<Long, Long> e : ids.entrySet()) {
      Long other = byTarget.put(e.getValue(), e.getKey());
      if (other != null) {
        throw Errors.badArguments(
            path,
            "operators "
                + other
                + " and "
                + e.getKey()
                + " would both become operator "
                + e.getValue());
      }
    }
    Map<Long, String> out = new TreeMap<>();
    Map<String, Long> seen = new HashMap<>();
    for (Map.Entry<Long, String> e : names.entrySet()) {
      Long target = ids.get(e.getKey());
      if (target == null) continue;
      Long other = seen.put(e.getValue().toLowerCase(Locale.ROOT), target);
      if (other != null) {
        throw Errors.badArguments(path, "uid '" + e.getValue() + "' is given to two operators");
      }
      out.put(target, e.getValue());
    }
    return out;
  }

  private static Operator find(
      String path, List<Operator> operators, Map<Long, String> known, String name) {
    for (Operator op : operators) {
      if (op.answersTo(name) || name.equalsIgnoreCase(known.get(op.id()))) return op;
    }
    List<String> all = new ArrayList<>();
    for (Operator op : operators) {
      all.add(op.uid() + (known.containsKey(op.id()) ? " (" + known.get(op.id()) + ")" : ""));
    }
    throw Errors.badArguments(
        path, "No operator '" + name + "'; the operators are " + String.join(", ", all));
  }
}
