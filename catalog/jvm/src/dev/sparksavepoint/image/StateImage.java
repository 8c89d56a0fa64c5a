package dev.sparksavepoint.image;

import dev.sparksavepoint.checkpoint.CancellableJobs;
import dev.sparksavepoint.checkpoint.FileListing;
import dev.sparksavepoint.conf.Settings;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.image.ImagePlan.StoreCopy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.hadoop.fs.Path;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Copies the state of an {@link ImagePlan}, one Spark job per store: a store that keeps its
 * partition count is copied partition by partition (one task each, no shuffle); one that gets
 * another count is read per source partition, each key placed by
 * {@link dev.sparksavepoint.checkpoint.KeyPartitioner}, and written per target partition after a
 * shuffle ({@code HashPartitioner} on the computed partition id, which is that id). The entries of
 * one key come from one source partition in order, so list state keeps its order. Every target
 * partition is written, also when empty.
 *
 * <p>A store copied as its files are ({@link ImageFiles}) whose operator's folder holds at most
 * {@link Settings#COPY_ON_DRIVER_BYTES} is copied by the driver, through the same FileSystem API,
 * without a job: a job's scheduling costs more than copying a few MB (a take of 1M keys).
 */
public final class StateImage {
  private StateImage() {}

  /**
   * Copies every store of {@code plan}; returns what each target store partition got. Stores
   * copied as their files whose operator folder holds at most {@code driverBytes} (0: none)
   * are copied on the driver ({@link #driverBytes}).
   */
  public static List<CopiedPartition> copy(ImagePlan plan, long driverBytes) {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkSession.active().sparkContext());
    CancellableJobs.interruptible(sc.sc());
    Map<Long, Boolean> small = new HashMap<>();
    List<CopiedPartition> commits = new ArrayList<>();
    try {
      for (StoreCopy copy : plan.copies()) {
        sc.setJobDescription(describe(plan, copy));
        if (copy.rehash()) {
          commits.addAll(rehash(sc, plan, copy));
        } else {
          boolean onDriver =
              driverBytes > 0
                  && ImageFiles.copiesFiles(plan, copy)
                  && small.computeIfAbsent(
                      copy.from().operatorId(), id -> holdsAtMost(plan, id, driverBytes));
          commits.addAll(direct(sc, plan, copy, onDriver));
        }
      }
    } finally {
      sc.setJobDescription(null);
    }
    return commits;
  }

  /**
   * Copies a store partition by partition: on the driver the partitions whose version is one
   * full image ({@code onDriver}), in a job the rest; in partition order.
   */
  private static List<CopiedPartition> direct(
      JavaSparkContext sc, ImagePlan plan, StoreCopy copy, boolean onDriver) {
    int n = copy.to().numPartitions();
    CopiedPartition[] copied = new CopiedPartition[n];
    if (onDriver) { // a few at a time, as a job's tasks on the driver's cores would
      IntStream.range(0, n).parallel().forEach(p -> copied[p] = ImageFiles.copy(plan, copy, p));
    }
    List<Integer> rest = new ArrayList<>();
    for (int p = 0; p < n; p++) if (copied[p] == null) rest.add(p);
    if (!rest.isEmpty()) {
      List<CopiedPartition> done =
          sc.parallelize(rest, rest.size()).map(p -> ImagePartition.copy(plan, copy, p)).collect();
      for (int i = 0; i < rest.size(); i++) copied[rest.get(i)] = done.get(i);
    }
    return Arrays.asList(copied);
  }

  /**
   * {@link Settings#COPY_ON_DRIVER_BYTES} of the session (a size such as {@code 64m}), checked
   * before anything is written.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_BAD_ARGUMENTS when it is no size
   */
  public static long driverBytes(SparkSession spark, String checkpoint) {
    String value =
        spark.conf().get(Settings.COPY_ON_DRIVER_BYTES, Settings.COPY_ON_DRIVER_BYTES_DEFAULT);
    try {
      long bytes = JavaUtils.byteStringAsBytes(value.trim());
      if (bytes >= 0) return bytes;
    } catch (RuntimeException notASize) { // NumberFormatException, IllegalArgumentException
      // refused below
    }
    throw Errors.badArguments(
        checkpoint,
        Settings.COPY_ON_DRIVER_BYTES
            + " is '"
            + value
            + "', which is no size: set it to bytes, such as 64m or 1g (0: copy in a Spark job)");
  }

  /**
   * Whether the source operator's state folder (every store, every version) holds at most
   * {@code limit} bytes ({@link FileListing#holdsAtMost}: listed until the sum passes it).
   */
  private static boolean holdsAtMost(ImagePlan plan, long operatorId, long limit) {
    Path folder = new Path(plan.sourceState(), Long.toString(operatorId));
    try {
      return FileListing.holdsAtMost(folder.getFileSystem(plan.hadoopConf()), folder, limit);
    } catch (IOException e) {
      return false; // the job's tasks will say what is wrong
    }
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
