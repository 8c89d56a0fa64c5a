package dev.sparksavepoint.store;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertThrows;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.read.HdfsFiles;
import dev.sparksavepoint.testing.TempFolders;
import dev.sparksavepoint.testing.Test;
import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.streaming.state.ReadStateStore;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreConf;
import org.apache.spark.sql.execution.streaming.state.StateStoreIterator;
import org.apache.spark.sql.execution.streaming.state.StateStoreProvider;
import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * Key reads and streamed full reads of an HDFS-backed partition's files, and the stores that
 * write its next version knowing only some keys or only the entry a walk is at, against Spark's
 * own provider: versions of a partition with puts, updates and removals, a snapshot written by
 * Spark's maintenance between them.
 */
public class HdfsPartialMapTest {
  private static final StructType SCHEMA = new StructType().add("n", DataTypes.LongType);
  private static final StoreSpec SPEC = new StoreSpec(0, "default", 1, SCHEMA, SCHEMA, 0);
  private static final String CF = StateStore.DEFAULT_COL_FAMILY_NAME();
  private static final List<Long> PROBES = List.of(1L, 5L, 7L, 9L, 200L, 999L);

  private static UnsafeRow row(long n) {
    UnsafeRow row = new UnsafeRow(1);
    row.pointTo(new byte[16], 16);
    row.setLong(0, n);
    return row;
  }

  private static List<UnsafeRow> rows(List<Long> keys) {
    return keys.stream().map(HdfsPartialMapTest::row).toList();
  }

  /** Snapshots after every delta, when maintenance runs. */
  private static StateStoreConf conf() {
    SQLConf sql = new SQLConf();
    sql.setConfString("spark.sql.streaming.stateStore.minDeltasForSnapshot", "1");
    return StateStoreConf.apply(sql);
  }

  private static StateStoreProvider open(String location) {
    return StoreProviders.open(location, UUID.randomUUID(), conf(), new Configuration(), SPEC, 0);
  }

  /** Versions 1..4 written by Spark's store; a snapshot of version 2. */
  private static String partition() throws Exception {
    String location = TempFolders.create("hdfs-partial").toUri().toString();
    StateStoreProvider spark = open(location);
    try {
      StateStore v1 = spark.getStore(0, Option.empty(), false, false);
      for (long n = 1; n <= 100; n++) v1.put(row(n), row(n * 10), CF);
      v1.commit();
      StateStore v2 = spark.getStore(1, Option.empty(), false, false);
      v2.put(row(5), row(55), CF);
      v2.remove(row(7), CF);
      v2.commit();
      spark.doMaintenance(); // 2.snapshot
      StateStore v3 = spark.getStore(2, Option.empty(), false, false);
      v3.remove(row(9), CF);
      v3.put(row(200), row(2000), CF);
      v3.commit();
      StateStore v4 = spark.getStore(3, Option.empty(), false, false);
      v4.put(row(7), row(77), CF);
      v4.commit();
    } finally {
      spark.close();
    }
    return location;
  }

  /** Spark's own answer: the probes' values at {@code version}, loaded by a fresh provider. */
  private static Map<Long, Long> loaded(String location, long version) {
    StateStoreProvider provider = open(location);
    try {
      ReadStateStore store = provider.getReadStore(version, Option.empty());
      Map<Long, Long> values = new TreeMap<>();
      for (long n : PROBES) {
        UnsafeRow value = store.get(row(n), CF);
        if (value != null) values.put(n, value.getLong(0));
      }
      store.abort();
      return values;
    } finally {
      provider.close();
    }
  }

  private static Map<Long, Long> read(String location, long version) {
    StateStoreProvider provider = open(location);
    try {
      Map<UnsafeRow, UnsafeRow> found =
          HdfsFiles.values(
              provider, version, rows(PROBES), SCHEMA, SCHEMA, conf(), new Configuration());
      assertTrue(found != null, "version " + version + " is read from its files");
      Map<Long, Long> values = new TreeMap<>();
      found.forEach((k, v) -> values.put(k.getLong(0), v.getLong(0)));
      return values;
    } finally {
      provider.close();
    }
  }

  private static File folder(String location) throws Exception {
    return new File(new java.net.URI(location + "/0/0"));
  }

  @Test
  public void keysReadFromTheFilesAreWhatSparkLoads() throws Exception {
    String location = partition();
    assertTrue(new File(folder(location), "2.snapshot").exists(), "Spark wrote a snapshot");
    for (long version = 0; version <= 4; version++) {
      assertEquals(loaded(location, version), read(location, version), "version " + version);
    }
    assertEquals(Map.of(1L, 10L, 5L, 55L, 7L, 77L, 200L, 2000L), read(location, 4), "version 4");
  }

  @Test
  public void aVersionWithoutItsDeltasIsLeftToSpark() throws Exception {
    String location = partition();
    assertTrue(new File(folder(location), "3.delta").delete(), "3.delta removed");
    StateStoreProvider provider = open(location);
    try {
      assertEquals(
          null,
          HdfsFiles.values(provider, 4, rows(PROBES), SCHEMA, SCHEMA, conf(), new Configuration()),
          "no answer without 3.delta");
      assertTrue(
          HdfsFiles.values(provider, 2, List.of(), SCHEMA, SCHEMA, conf(), new Configuration())
              != null,
          "version 2 stands on its snapshot");
    } finally {
      provider.close();
    }
  }

  @Test
  public void theNextVersionWrittenKnowingFewKeysLoadsAsTheWholeState() throws Exception {
    String location = partition();
    StateStoreProvider provider = open(location);
    try {
      List<UnsafeRow> keys = rows(List.of(1L, 5L, 300L));
      Map<UnsafeRow, UnsafeRow> found =
          HdfsFiles.values(provider, 4, keys, SCHEMA, SCHEMA, conf(), new Configuration());
      StateStore store = HdfsPartialMap.store(provider, 4, keys, found);
      assertTrue(store != null, "Spark's store is built over the partial map");
      assertEquals(55L, store.get(row(5), CF).getLong(0), "a named key's entry");
      assertTrue(store.get(row(300), CF) == null, "a named key without an entry");
      assertThrows(IllegalStateException.class, () -> store.get(row(2), CF));
      assertThrows(IllegalStateException.class, () -> store.remove(row(2), CF));
      store.remove(row(1), CF);
      store.put(row(300), row(3000), CF);
      store.put(row(5), row(555), CF);
      store.commit();
      StateStore untouched = HdfsPartialMap.store(provider, 5, List.of(), Map.of());
      untouched.commit();
    } finally {
      provider.close();
    }
    for (long version : new long[] {5, 6}) {
      assertEquals(edited(), sparkEntries(location, version), "version " + version);
    }
  }

  /** Version 4 with key 1 removed, 300 put and 5 changed, as both edits below write it. */
  private static Map<Long, Long> edited() {
    Map<Long, Long> expected = new TreeMap<>();
    for (long n = 2; n <= 100; n++) if (n != 9) expected.put(n, n * 10);
    expected.put(5L, 555L);
    expected.put(7L, 77L);
    expected.put(200L, 2000L);
    expected.put(300L, 3000L);
    return expected;
  }

  /** Every entry of {@code version}, as Spark's provider loads it. */
  private static Map<Long, Long> sparkEntries(String location, long version) {
    StateStoreProvider reader = open(location);
    try {
      ReadStateStore image = reader.getReadStore(version, Option.empty());
      Map<Long, Long> entries = new TreeMap<>();
      StateStoreIterator<UnsafeRowPair> it = image.iterator(CF);
      while (it.hasNext()) {
        UnsafeRowPair pair = it.next();
        entries.put(pair.key().getLong(0), pair.value().getLong(0));
      }
      image.abort();
      return entries;
    } finally {
      reader.close();
    }
  }

  /** Every entry of {@code version} streamed from the files, or null when left to Spark. */
  private static Map<Long, Long> streamed(String location, long version) {
    StateStoreProvider provider = open(location);
    try (HdfsFiles.Entries e =
        HdfsFiles.entries(provider, version, SCHEMA, SCHEMA, conf(), new Configuration(), null)) {
      if (e == null) return null;
      Map<Long, Long> entries = new TreeMap<>();
      while (e.next()) {
        Long before = entries.put(e.key().getLong(0), e.value().getLong(0));
        assertTrue(before == null, "key " + e.key().getLong(0) + " streamed once");
      }
      return entries;
    } finally {
      provider.close();
    }
  }

  @Test
  public void everyEntryStreamedIsWhatSparkLoads() throws Exception {
    String location = partition();
    for (long version = 0; version <= 4; version++) {
      assertEquals(sparkEntries(location, version), streamed(location, version), "v" + version);
    }
  }

  @Test
  public void aFirstDeltaThatRepeatsOrRemovesAKeyIsLeftToSpark() throws Exception {
    for (boolean removes : new boolean[] {false, true}) {
      String location = TempFolders.create("hdfs-first-delta").toUri().toString();
      StateStoreProvider spark = open(location);
      try {
        StateStore v1 = spark.getStore(0, Option.empty(), false, false);
        v1.put(row(1), row(10), CF);
        v1.put(row(2), row(20), CF);
        if (removes) v1.remove(row(2), CF);
        else v1.put(row(1), row(11), CF);
        v1.commit();
      } finally {
        spark.close();
      }
      assertEquals(null, streamed(location, 1), "left to Spark, removes: " + removes);
      Map<Long, Long> expected = removes ? Map.of(1L, 10L) : Map.of(1L, 11L, 2L, 20L);
      assertEquals(new TreeMap<>(expected), sparkEntries(location, 1), "Spark's answer");
    }
  }

  @Test
  public void aWalkedStoreWritesWhatTheWalkChangedAndHoldsNothing() throws Exception {
    String location = partition();
    StateStoreProvider provider = open(location);
    try {
      HdfsWalkMap map = new HdfsWalkMap();
      map.stored(100);
      StateStore store = PartHdfsMap.storeOver(provider, 4, map);
      assertTrue(store != null, "Spark's store is built over the walk's map");
      map.at(row(1), row(10));
      store.remove(row(1), CF);
      map.at(row(5), row(55));
      assertEquals(55L, store.get(row(5), CF).getLong(0), "the entry the walk is at");
      assertThrows(IllegalStateException.class, () -> store.get(row(2), CF));
      store.put(row(5), row(555), CF);
      map.at(row(300), null);
      assertTrue(store.get(row(300), CF) == null, "a key the walk is at without an entry");
      store.put(row(300), row(3000), CF);
      assertEquals(100, map.size(), "one removed, one added");
      store.commit();
    } finally {
      provider.close();
    }
    assertEquals(edited(), sparkEntries(location, 5), "version 5 as Spark loads it");
  }
}
