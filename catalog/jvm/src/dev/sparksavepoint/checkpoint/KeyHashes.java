package dev.sparksavepoint.checkpoint;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.XXH64;

/**
 * Whether a stream of keys repeats one, without keeping the keys: each key's 64-bit hash is
 * kept and, at the end, a hash that repeats is looked for. A full image written into a store that
 * keeps no entries finds a key given twice so ({@code store.HdfsImageMap}), a read that streams
 * a first delta as a partition's base proves it puts each key once ({@code read.HdfsFiles}). Distinct hashes
 * prove distinct keys; a repeated hash names a suspect, which the caller settles by reading the
 * written image back (two distinct keys share a 64-bit hash about once in 10^8 partitions of a
 * million keys). Memory is bounded: up to {@link #DEFAULT_RUN} hashes (32 MB) are kept on the heap;
 * beyond that each full run is sorted and spilled to a file in Spark's local directories, and the
 * runs are merged at the end.
 *
 * <pre>{@code
 * try (KeyHashes hashes = new KeyHashes()) {
 *   hashes.add(key);                     // for every key put
 *   hashes.repeated();                   // empty: every key was given once
 * }
 * }</pre>
 */
public final class KeyHashes implements AutoCloseable {
  /** Hashes held on the heap before a run is spilled: 4M (32 MB). */
  static final int DEFAULT_RUN = 1 << 22;

  private static final long SEED = 42L;

  private final int runLength;
  private long[] hashes = new long[1 << 12];
  private int size;
  private final List<File> spilled = new ArrayList<>();

  public KeyHashes() {
    this(DEFAULT_RUN);
  }

  /** Spills every {@code runLength} hashes (tests use small runs). */
  public KeyHashes(int runLength) {
    this.runLength = runLength;
  }

  /** The 64-bit hash of a key's bytes. */
  public static long of(UnsafeRow key) {
    return XXH64.hashUnsafeBytes(
        key.getBaseObject(), key.getBaseOffset(), key.getSizeInBytes(), SEED);
  }

  public void add(UnsafeRow key) {
    if (size == runLength) spill();
    if (size == hashes.length) hashes = Arrays.copyOf(hashes, Math.min(size * 2, runLength));
    hashes[size++] = of(key);
  }

  /** A hash two added keys share, or empty when every hash is distinct. */
  public OptionalLong repeated() {
    Arrays.sort(hashes, 0, size);
    if (spilled.isEmpty()) {
      for (int i = 1; i < size; i++) {
        if (hashes[i] == hashes[i - 1]) return OptionalLong.of(hashes[i]);
      }
      return OptionalLong.empty();
    }
    return merged();
  }

  /** The sorted runs merged (spilled files and the run in memory), looking for a repeat. */
  private OptionalLong merged() {
    List<Run> runs = new ArrayList<>();
    try {
      for (File file : spilled) runs.add(Run.of(file));
      runs.add(Run.of(hashes, size));
      PriorityQueue<Run> heads = new PriorityQueue<>((a, b) -> Long.compare(a.head, b.head));
      for (Run run : runs) {
        if (run.advance()) heads.add(run);
      }
      boolean first = true;
      long previous = 0;
      while (!heads.isEmpty()) {
        Run run = heads.poll();
        if (!first && run.head == previous) return OptionalLong.of(previous);
        first = false;
        previous = run.head;
        if (run.advance()) heads.add(run);
      }
      return OptionalLong.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      for (Run run : runs) run.close();
    }
  }

  private void spill() {
    Arrays.sort(hashes, 0, size);
    try {
      File file = temporaryFile();
      spilled.add(file);
      try (DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(new FileOutputStream(file), 1 << 16))) {
        for (int i = 0; i < size; i++) out.writeLong(hashes[i]);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not spill the keys' hashes", e);
    }
    size = 0;
  }

  /** A file in Spark's local directories (spark.local.dir), or in java.io.tmpdir. */
  private static File temporaryFile() throws IOException {
    SparkEnv env = SparkEnv.get();
    if (env != null) return env.blockManager().diskBlockManager().createTempLocalBlock()._2();
    File file = File.createTempFile("spark-savepoint-key-hashes-", ".bin");
    file.deleteOnExit();
    return file;
  }

  /** Deletes the spilled runs. */
  @Override
  public void close() {
    for (File file : spilled) file.delete();
    spilled.clear();
  }

  /** One sorted run being merged: a spilled file or the hashes in memory. */
  private static final class Run implements AutoCloseable {
    private final DataInputStream in;
    private final long[] memory;
    private final int length;
    private int next;
    long head;

    private Run(DataInputStream in, long[] memory, int length) {
      this.in = in;
      this.memory = memory;
      this.length = length;
    }

    public static Run of(File file) throws IOException {
      return new Run(
          new DataInputStream(new BufferedInputStream(new FileInputStream(file), 1 << 16)),
          null,
          0);
    }

    public static Run of(long[] memory, int length) {
      return new Run(null, memory, length);
    }

    /** Moves to the next hash ({@link #head}); false at the end of the run. */
    boolean advance() throws IOException {
      if (in == null) {
        if (next >= length) return false;
        head = memory[next++];
        return true;
      }
      try {
        head = in.readLong();
        return true;
      } catch (EOFException end) {
        return false;
      }
    }

    @Override
    public void close() {
      if (in == null) return;
      try {
        in.close();
      } catch (IOException e) {
        // a temporary file, deleted with the others
      }
    }
  }
}
