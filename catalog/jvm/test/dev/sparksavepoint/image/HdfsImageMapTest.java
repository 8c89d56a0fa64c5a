package dev.sparksavepoint.image;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.checkpoint.KeyHashes;
import dev.sparksavepoint.checkpoint.StoreFiles;
import dev.sparksavepoint.checkpoint.StoreProviders;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.store.HdfsImageMap;
import dev.sparksavepoint.testing.TempFolders;
import dev.sparksavepoint.testing.Test;
import java.io.File;
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
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Option;

public class HdfsImageMapTest {
  private static final StructType SCHEMA = new StructType().add("n", DataTypes.LongType);
  private static final StoreSpec SPEC = new StoreSpec(0, "default", 1, SCHEMA, SCHEMA, 0);

  private static UnsafeRow row(long n) {
    UnsafeRow row = new UnsafeRow(1);
    row.pointTo(new byte[16], 16);
    row.setLong(0, n);
    return row;
  }

  private static StateStoreProvider open(String location) {
    return StoreProviders.open(
        location, UUID.randomUUID(), StateStoreConf.empty(), new Configuration(), SPEC, 0);
  }

  @Test
  public void anImageStoreKeepsNothingAndItsDeltaLoadsAsTheSnapshotOfAVersion() throws Exception {
    String location = TempFolders.create("hdfs-image").toUri().toString();
    StateStoreProvider writer = open(location);
    try {
      StateStore store = writer.getStore(0, Option.empty(), false, false);
      assertTrue(HdfsImageMap.install(store), "Spark's HDFS-backed store takes the map");
      for (long n = 1; n <= 3; n++)
        store.put(row(n), row(n * 10), StateStore.DEFAULT_COL_FAMILY_NAME());
      assertTrue(
          store.get(row(2), StateStore.DEFAULT_COL_FAMILY_NAME()) == null,
          "no entry stays on the heap");
      assertEquals(3L, store.metrics().numKeys(), "the count is kept");
      store.commit();
    } finally {
      writer.close();
    }

    File folder = new File(new java.net.URI(location + "/0/0"));
    for (String name : folder.list()) {
      if (StoreFiles.isDeltaOf(name, 1)) {
        assertTrue(
            new File(folder, name).renameTo(new File(folder, StoreFiles.asSnapshot(name, 7))),
            "renamed " + name);
      }
    }
    StateStoreProvider reader = open(location);
    try {
      ReadStateStore image = reader.getReadStore(7, Option.empty());
      Map<Long, Long> entries = new TreeMap<>();
      StateStoreIterator<UnsafeRowPair> it = image.iterator(StateStore.DEFAULT_COL_FAMILY_NAME());
      while (it.hasNext()) {
        UnsafeRowPair pair = it.next();
        entries.put(pair.key().getLong(0), pair.value().getLong(0));
      }
      assertEquals(Map.of(1L, 10L, 2L, 20L, 3L, 30L), entries, "version 7 is the image");
      image.abort();
    } finally {
      reader.close();
    }
  }

  @Test
  public void keyHashesFindAKeyGivenTwice() {
    KeyHashes distinct = new KeyHashes();
    for (long n = 0; n < 10_000; n++) distinct.add(row(n));
    assertTrue(distinct.repeated().isEmpty(), "10,000 distinct keys");
    KeyHashes twice = new KeyHashes();
    for (long n : new long[] {1, 2, 3, 2}) twice.add(row(n));
    assertEquals(KeyHashes.of(row(2)), twice.repeated().getAsLong(), "key 2 repeats");
  }

  @Test
  public void keyHashesSpillRunsAndFindARepeatAcrossThem() {
    try (KeyHashes distinct = new KeyHashes(1000)) {
      for (long n = 0; n < 10_500; n++) distinct.add(row(n));
      assertTrue(distinct.repeated().isEmpty(), "10,500 distinct keys in 11 runs");
    }
    try (KeyHashes twice = new KeyHashes(1000)) {
      for (long n = 0; n < 5_000; n++) twice.add(row(n));
      twice.add(row(17)); // in the sixth run, its first in the first
      assertEquals(KeyHashes.of(row(17)), twice.repeated().getAsLong(), "17 repeats");
    }
  }
}
