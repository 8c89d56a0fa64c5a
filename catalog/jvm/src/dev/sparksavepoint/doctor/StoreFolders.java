package dev.sparksavepoint.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Where a checkpoint keeps its state, from a listing: the operators ({@code state/<op>/}), their
 * partition folders ({@code state/<op>/<p>/}) and each partition's stores: {@code ""} for files
 * of the partition folder itself, and a join's store folders ({@code left-keyToNumValues}, ...),
 * in the order of their index in a format-2 commit's state checkpoint ids.
 */
final class StoreFolders {
  private StoreFolders() {}

  /** The operator ids with a state folder, ascending. */
  static List<Long> operators(CheckpointTree tree) {
    List<Long> ops = new ArrayList<>();
    for (String name : tree.children("state")) {
      if (name.matches("\\d+") && tree.isFolder("state/" + name)) ops.add(Long.parseLong(name));
    }
    return ops;
  }

  /** The partition folders of operator folder {@code dir}. */
  static TreeSet<Integer> partitions(CheckpointTree tree, String dir) {
    TreeSet<Integer> folders = new TreeSet<>();
    for (String name : tree.children(dir)) {
      if (name.matches("\\d+") && tree.isFolder(dir + "/" + name))
        folders.add(Integer.valueOf(name));
    }
    return folders;
  }

  /** The stores of the operator's partitions (any partition's), sorted; {@code [""]} if none. */
  static List<String> stores(CheckpointTree tree, String dir, TreeSet<Integer> partitions) {
    TreeSet<String> stores = new TreeSet<>();
    for (int p : partitions) stores.addAll(storesOf(tree, dir + "/" + p));
    if (stores.isEmpty()) stores.add("");
    return List.copyOf(stores);
  }

  /**
   * The state checkpoint id a format-2 commit records for store {@code store} (its index) of an
   * operator's partition, or null (format 1, or none recorded).
   */
  static String uniqueId(Map<Long, String[][]> ids, long op, int partition, int store) {
    String[][] table = ids == null ? null : ids.get(op);
    if (table == null || partition >= table.length || table[partition].length == 0) return null;
    return table[partition][Math.min(store, table[partition].length - 1)];
  }

  /** The folder of store {@code store} of a partition folder. */
  static String folder(String partitionFolder, String store) {
    return store.isEmpty() ? partitionFolder : partitionFolder + "/" + store;
  }

  private static List<String> storesOf(CheckpointTree tree, String folder) {
    List<String> stores = new ArrayList<>();
    for (String name : tree.children(folder)) {
      String path = folder + "/" + name;
      if (tree.isFolder(path)) {
        if (!name.equals("_metadata") && !name.equals("SSTs") && !name.startsWith(".")) {
          stores.add(name);
        }
      } else if (StoreChain.version(name) >= 0 && !stores.contains("")) {
        stores.add("");
      }
    }
    return stores;
  }
}
