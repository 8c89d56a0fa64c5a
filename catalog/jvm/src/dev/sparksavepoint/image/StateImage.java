package dev.sparksavepoint.image;

import dev.sparksavepoint.checkpoint.CancellableJobs;
import dev.sparksavepoint.image.ImagePlan.StoreCopy;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Copies the state of an {@link ImagePlan}, one Spark job per store: a store that keeps its
 * partition count is copied partition by partition (one task each, no shuffle); one that gets
 * another count is read per source partition, each key placed by
 * {@link dev.sparksavepoint.checkpoint.KeyPartitioner}, and written per target partition after a
 * shuffle ({@code HashPartitioner} on the computed partition id, which is that id). The entries of
 * one key come from one source partition in order, so list state keeps its order. Every target
 * partition is written, also when empty.
 */
public final class StateImage {
  private StateImage() {}

  /** Copies every store of {@code plan}; returns what each target store partition got. */
  public static List<CopiedPartition> copy(ImagePlan plan) {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkSession.active().sparkContext());
    CancellableJobs.interruptible(sc.sc());
    List<CopiedPartition> commits = new ArrayList<>();
    try {
      for (StoreCopy copy : plan.copies()) {
        sc.setJobDescription(describe(plan, copy));
        commits.addAll(copy.rehash() ? rehash(sc, plan, copy) : direct(sc, plan, copy));
      }
    } finally {
      sc.setJobDescription(null);
    }
    return commits;
  }

  private static List<CopiedPartition> direct(JavaSparkContext sc, ImagePlan plan, StoreCopy copy) {
    int n = copy.to().numPartitions();
    return sc.parallelize(partitions(n), n).map(p -> ImagePartition.copy(plan, copy, p)).collect();
  }

  private static List<CopiedPartition> rehash(JavaSparkContext sc, ImagePlan plan, StoreCopy copy) {
    int from = copy.from().numPartitions();
    int to = copy.to().numPartitions();
    return sc.parallelize(partitions(from), from)
        .flatMapToPair(p -> ImagePartition.rehashed(plan, copy, p))
        .partitionBy(new HashPartitioner(to))
        .mapPartitionsWithIndex(
            (p, entries) ->
                List.of(ImagePartition.write(plan, copy, p, new Values(entries))).iterator(),
            true)
        .collect();
  }

  private static List<Integer> partitions(int n) {
    return IntStream.range(0, n).boxed().toList();
  }

  private static String describe(ImagePlan plan, StoreCopy copy) {
    if (copy.from() == null) {
      return "savepoint: empty state for operator "
          + copy.to().operatorId()
          + " store "
          + copy.to().storeName()
          + " in "
          + plan.checkpoint();
    }
    String what =
        "savepoint: copy state of operator "
            + copy.from().operatorId()
            + " store "
            + copy.from().storeName();
    if (copy.from().operatorId() != copy.to().operatorId()) {
      what += " to operator " + copy.to().operatorId();
    }
    if (copy.rehash()) {
      what +=
          " (" + copy.from().numPartitions() + " -> " + copy.to().numPartitions() + " partitions)";
    }
    return what + " into " + plan.checkpoint();
  }

  /** The values of a pair iterator. */
  private record Values(java.util.Iterator<scala.Tuple2<Integer, byte[]>> pairs)
      implements java.util.Iterator<byte[]> {
    @Override
    public boolean hasNext() {
      return pairs.hasNext();
    }

    @Override
    public byte[] next() {
      return pairs.next()._2();
    }
  }
}
