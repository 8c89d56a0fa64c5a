package dev.sparksavepoint.commit;

import dev.sparksavepoint.checkpoint.StoreSpec;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * What the commit protocol needs to know of an edit: the checkpoint, the last committed batch N
 * it builds on (it commits batch N+1), and every store whose partitions get version N+2. Planned
 * by the write layer ({@code write.WritePlan}); the commit layer never sees rows.
 */
public interface BatchPlan {
  String checkpoint();

  /** The last committed batch N; the edit commits batch N+1 with state version N+2. */
  long batchId();

  /** Every store of every stateful operator: all of them get the new version. */
  List<StoreSpec> stores();

  Configuration hadoopConf();

  /** True when the checkpoint records state checkpoint ids (format v2). */
  boolean hasUniqueIds();

  /**
   * Records what the edit did besides its own change that the user should know (an interrupted
   * edit completed or discarded first, leftovers removed): its report's warning.
   */
  default void notice(String line) {}

  /** The lines {@link #notice} recorded, in order. */
  default List<String> notices() {
    return List.of();
  }

  /** The folder state stores live under: {@code <checkpoint>/state}. */
  default String stateLocation() {
    return new Path(checkpoint(), "state").toString();
  }
}
