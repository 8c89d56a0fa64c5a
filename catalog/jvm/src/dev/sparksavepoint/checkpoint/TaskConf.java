package dev.sparksavepoint.checkpoint;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.util.SerializableConfiguration;

/**
 * A Hadoop configuration as tasks get it: one broadcast, as Spark's own state store RDDs ship
 * theirs, not a copy inside every task. Hadoop serializes a {@link Configuration} by gzipping
 * each of its ~1000 properties' sources ({@code Configuration.write}), so a plan holding one
 * paid that twice per job on the driver (Spark's closure check and task binary) and once per
 * task to read it back. Equal configurations of one Spark application share one broadcast; an
 * executor reads it once and its tasks share it, as they share Spark's.
 *
 * <p>Example: {@code TaskConf conf = TaskConf.of(spark);} in a plan, {@code conf.value()} in
 * its tasks.
 */
public final class TaskConf implements Serializable {
  /** How many configurations stay shared (the most recently used). */
  private static final int KEPT = 8;

  private static final Map<String, TaskConf> SHARED =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TaskConf> eldest) {
          return size() > KEPT;
        }
      };

  private final Broadcast<SerializableConfiguration> broadcast;

  private TaskConf(Broadcast<SerializableConfiguration> broadcast) {
    this.broadcast = broadcast;
  }

  /** The session's Hadoop configuration ({@code sessionState().newHadoopConf()}) for tasks. */
  public static TaskConf of(SparkSession spark) {
    return of(spark.sparkContext(), spark.sessionState().newHadoopConf());
  }

  /** {@code conf} for the tasks of {@code sc}: a broadcast made once per distinct content. */
  public static TaskConf of(SparkContext sc, Configuration conf) {
    String key = sc.applicationId() + "@" + sc.startTime() + "/" + fingerprint(conf);
    synchronized (SHARED) {
      TaskConf known = SHARED.get(key);
      if (known != null) return known;
      TaskConf made =
          new TaskConf(
              JavaSparkContext.fromSparkContext(sc).broadcast(new SerializableConfiguration(conf)));
      SHARED.put(key, made);
      return made;
    }
  }

  /** The configuration (in a task: the executor's one copy of the broadcast). */
  public Configuration value() {
    return broadcast.value().value();
  }

  /** SHA-256 of every property, sorted: equal for equal content, whatever its order. */
  private static String fingerprint(Configuration conf) {
    List<String> entries = new ArrayList<>();
    for (Map.Entry<String, String> e : conf) entries.add(e.getKey() + "=" + e.getValue());
    entries.sort(null);
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String e : entries) {
        sha.update(e.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
