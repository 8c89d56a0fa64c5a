package dev.sparksavepoint.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The data files of one state store folder by version, and what loading a version needs, as
 * Spark's providers load it: HDFS-backed, the newest {@code .snapshot} at or below the version
 * and every {@code .delta} after it; RocksDB, the newest {@code .zip} at or below it and every
 * {@code .changelog} after it (with changelog checkpointing), else the version's own zip;
 * checkpoint format 2, the version's file named by the commit's state checkpoint id
 * ({@code 5_<id>.zip} or {@code 5_<id>.changelog}), whose lineage Spark follows from there.
 */
final class StoreChain {
  private static final Pattern VERSION_FILE =
      Pattern.compile("(\\d+)(?:_([0-9A-Za-z-]+))?\\.(delta|snapshot|zip|changelog)");

  /** Version to the kinds of file it has, unique id (format 2) prefixed: "delta", "<id>.zip". */
  private final TreeMap<Long, TreeSet<String>> files = new TreeMap<>();

  private StoreChain() {}

  static StoreChain of(CheckpointTree tree, String folder) {
    return of(tree, folder, file -> true);
  }

  /** The chain of the files of {@code folder} that are {@code usable} (relative paths). */
  static StoreChain of(CheckpointTree tree, String folder, Predicate<String> usable) {
    StoreChain chain = new StoreChain();
    for (String name : tree.children(folder)) {
      Matcher m = VERSION_FILE.matcher(name);
      String path = folder + "/" + name;
      if (!m.matches() || tree.isFolder(path) || !usable.test(path)) continue;
      String kind = m.group(2) == null ? m.group(3) : m.group(2) + "." + m.group(3);
      chain.files.computeIfAbsent(Long.parseLong(m.group(1)), v -> new TreeSet<>()).add(kind);
    }
    return chain;
  }

  /** True for a full copy of a version: {@code .snapshot} or {@code .zip}. */
  static boolean isSnapshot(String name) {
    Matcher m = VERSION_FILE.matcher(name);
    return m.matches() && (m.group(3).equals("zip") || m.group(3).equals("snapshot"));
  }

  /** The version of a state data file name ({@code 5.delta}, {@code 5_<id>.zip}), or -1. */
  static long version(String name) {
    Matcher m = VERSION_FILE.matcher(name);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  /**
   * The file names missing to build {@code version}: with {@code id} (format 2) the files of its
   * lineage, the version's own and, back to a zip, the changelogs of the versions before it,
   * each named by the id its batch's commit records ({@code earlier}: version -> id, null where
   * no commit tells); else the deltas or changelogs after the newest snapshot at or below it.
   */
  List<String> missing(long version, String id, LongFunction<String> earlier, boolean rocksdb) {
    if (id != null) {
      String gone = lineage(version, id, earlier, false);
      return gone == null ? List.of() : List.of(gone);
    }
    String snapshot = rocksdb ? "zip" : "snapshot";
    String change = rocksdb ? "changelog" : "delta";
    long base = base(version, snapshot);
    List<String> missing = new ArrayList<>();
    if (base == version) return missing;
    if (rocksdb && !anyKind(change)) return List.of(version + ".zip");
    for (long v = base + 1; v <= version; v++) {
      if (!has(v, change)) missing.add(v + "." + change);
    }
    return missing;
  }

  /** The zip {@code version} loads from (format 1: the newest at or below it), or null. */
  String baseZip(long version, String id, LongFunction<String> earlier) {
    if (id != null) return lineage(version, id, earlier, true);
    long base = base(version, "zip");
    return base > 0 ? base + ".zip" : null;
  }

  /**
   * Walks a format 2 lineage down from {@code version} (id {@code id}): the zip it starts from
   * ({@code zip}) or the first file missing on the way; null for none (the way ends at version
   * 0, or where no commit tells the id).
   */
  private String lineage(long version, String id, LongFunction<String> earlier, boolean zip) {
    String changelog = anyKind("changelog") ? ".changelog" : ".zip";
    for (long v = version; v > 0 && id != null; v--) {
      if (has(v, id + ".zip")) return zip ? v + "_" + id + ".zip" : null;
      if (!has(v, id + ".changelog")) return zip ? null : v + "_" + id + changelog;
      id = v > 1 ? earlier.apply(v - 1) : null;
    }
    return null;
  }

  /** The files of versions after {@code version}. */
  List<String> pastVersion(long version) {
    List<String> past = new ArrayList<>();
    for (var entry : files.tailMap(version, false).entrySet()) {
      for (String kind : entry.getValue()) {
        int dot = kind.lastIndexOf('.');
        past.add(entry.getKey() + (dot < 0 ? "." + kind : "_" + kind));
      }
    }
    return past;
  }

  /** True when a file is named by a state checkpoint id (format 2: {@code 5_<id>.changelog}). */
  boolean namedByIds() {
    return files.values().stream().flatMap(TreeSet::stream).anyMatch(k -> k.indexOf('.') >= 0);
  }

  /**
   * True when the files' names and the commit's state checkpoint ids ({@code id}, null for
   * checkpoint format 1) are of different checkpoint formats: format 2 names every file by
   * the id its commit records ({@code 5_<id>.changelog}), format 1 by the version alone.
   */
  boolean formatDisagreesWith(String id) {
    boolean named = false;
    boolean plain = false;
    for (TreeSet<String> kinds : files.values()) {
      for (String kind : kinds) {
        if (kind.indexOf('.') >= 0) named = true;
        else plain = true;
      }
    }
    return id == null ? named && !plain : plain && !named;
  }

  /** True when the files are of the other provider than {@code rocksdb} says. */
  boolean disagreesWith(boolean rocksdb) {
    return rocksdb
        ? anyKind("delta") || anyKind("snapshot")
        : anyKind("zip") || anyKind("changelog");
  }

  /** The kinds of data file present, e.g. "delta, snapshot". */
  String kinds() {
    TreeSet<String> kinds = new TreeSet<>();
    for (TreeSet<String> of : files.values()) {
      for (String kind : of) kinds.add("." + kind.substring(kind.lastIndexOf('.') + 1));
    }
    return String.join(", ", kinds);
  }

  /** The newest version at or below {@code version} with a file of {@code kind}; 0 if none. */
  private long base(long version, String kind) {
    for (var entry : files.headMap(version, true).descendingMap().entrySet()) {
      if (entry.getValue().contains(kind)) return entry.getKey();
    }
    return 0;
  }

  private boolean has(long version, String kind) {
    TreeSet<String> kinds = files.get(version);
    return kinds != null && kinds.contains(kind);
  }

  private boolean anyKind(String kind) {
    for (TreeSet<String> of : files.values()) {
      for (String k : of) {
        if (k.equals(kind) || k.endsWith("." + kind)) return true;
      }
    }
    return false;
  }
}
