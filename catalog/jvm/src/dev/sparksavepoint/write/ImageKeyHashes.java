package dev.sparksavepoint.write;

import java.util.Arrays;
import java.util.OptionalLong;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.XXH64;

/**
 * How a full image written into a store that keeps no entries ({@link HdfsImageMap}) finds a
 * key given twice: it keeps each key's 64-bit hash (8 bytes per key, against the 100+ bytes of a
 * key and value the store would keep) and, when the partition is written, sorts them. Distinct
 * hashes prove distinct keys; a repeated hash names a suspect, which the caller settles by
 * reading the written image back (two distinct keys share a 64-bit hash about once in 10^8
 * partitions of a million keys).
 *
 * <pre>{@code
 * ImageKeyHashes hashes = new ImageKeyHashes();
 * hashes.add(key);                       // for every key put
 * hashes.repeated();                    // empty: every key was given once
 * }</pre>
 */
final class ImageKeyHashes {
  private static final long SEED = 42L;

  private long[] hashes = new long[1 << 12];
  private int size;

  /** The 64-bit hash of a key's bytes. */
  static long of(UnsafeRow key) {
    return XXH64.hashUnsafeBytes(key.getBaseObject(), key.getBaseOffset(), key.getSizeInBytes(),
        SEED);
  }

  void add(UnsafeRow key) {
    if (size == hashes.length) hashes = Arrays.copyOf(hashes, size * 2);
    hashes[size++] = of(key);
  }

  /** A hash two added keys share, or empty when every hash is distinct. */
  OptionalLong repeated() {
    Arrays.sort(hashes, 0, size);
    for (int i = 1; i < size; i++) {
      if (hashes[i] == hashes[i - 1]) return OptionalLong.of(hashes[i]);
    }
    return OptionalLong.empty();
  }
}
