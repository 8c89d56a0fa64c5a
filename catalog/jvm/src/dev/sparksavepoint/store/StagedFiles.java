package dev.sparksavepoint.store;

import dev.sparksavepoint.checkpoint.StoreSpec;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The changes the statements of an edit transaction staged so far, by store partition: each
 * partition's {@link StagedEdits} files in statement order. A later statement reads the state
 * with them replayed over it ({@link StagedState}); shipped to its tasks.
 */
public final class StagedFiles implements Serializable {
  /** No statement staged anything. */
  public static final StagedFiles NONE = new StagedFiles(Map.of());

  private final Map<String, List<String>> byPartition;

  private StagedFiles(Map<String, List<String>> byPartition) {
    this.byPartition = byPartition;
  }

  /** The files of {@code changes} (in statement order), those that staged a file. */
  public static StagedFiles of(List<PlannedChanges> changes) {
    Map<String, List<String>> files = new HashMap<>();
    for (PlannedChanges c : changes) {
      if (c.stagedFile() == null) continue;
      files
          .computeIfAbsent(
              name(c.operatorId(), c.storeName(), c.partition()), k -> new ArrayList<>())
          .add(c.stagedFile());
    }
    return new StagedFiles(files);
  }

  /** The files staged for {@code spec}'s partition {@code partition}, in statement order. */
  public List<String> of(StoreSpec spec, int partition) {
    return byPartition.getOrDefault(
        name(spec.operatorId(), spec.storeName(), partition), List.of());
  }

  /** True when some statement staged a change of {@code spec}. */
  public boolean touches(StoreSpec spec) {
    String prefix = spec.operatorId() + "/" + spec.storeName() + "/";
    return byPartition.keySet().stream().anyMatch(k -> k.startsWith(prefix));
  }

  private static String name(long operatorId, String storeName, int partition) {
    return operatorId + "/" + storeName + "/" + partition;
  }
}
