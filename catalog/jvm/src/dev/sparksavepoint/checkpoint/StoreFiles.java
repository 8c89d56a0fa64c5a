package dev.sparksavepoint.checkpoint;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of state store data files, as HDFS-backed and RocksDB stores write them
 * ({@code 5.delta}, {@code 5.snapshot}, {@code 5.zip}, {@code 5.changelog},
 * {@code 5_<checkpointId>.zip}), with their checksums ({@code .5.delta.crc}) and temporary files
 * ({@code .5.delta.<uuid>.TID7.tmp}). Only names are read here; the files are Spark's.
 */
public final class StoreFiles {
  /** Group 1 is the version, group 3 the kind. */
  private static final Pattern VERSION_FILE =
      Pattern.compile("\\.*(\\d+)(_[^.]*)?\\.(delta|snapshot|zip|changelog)(\\..*)?");

  private StoreFiles() {}

  /** True for a store data file of any version (or its checksum or temporary file). */
  public static boolean isData(String name) {
    return VERSION_FILE.matcher(name).matches();
  }

  /** The version a store file belongs to, or -1 when {@code name} is not one. */
  public static long versionOf(String name) {
    Matcher m = VERSION_FILE.matcher(name);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  /** True for a full copy of a version ({@code .zip}, {@code .snapshot}), not a change file. */
  public static boolean isSnapshot(String name) {
    Matcher m = VERSION_FILE.matcher(name);
    return m.matches() && (m.group(3).equals("zip") || m.group(3).equals("snapshot"));
  }

  /** True for an HDFS-backed delta file of version {@code version} (or its checksum). */
  public static boolean isDeltaOf(String name, long version) {
    Matcher m = VERSION_FILE.matcher(name);
    return m.matches() && m.group(3).equals("delta") && Long.parseLong(m.group(1)) == version;
  }

  /**
   * The name a store file gets as the HDFS-backed snapshot of {@code version}, its companions
   * kept: {@code 1.delta} -> {@code 7.snapshot}, {@code .1.delta.crc} -> {@code .7.snapshot.crc}.
   * A delta committed on top of no state holds puts only, each written exactly as a snapshot
   * writes an entry (length and bytes of key and value, then -1 at the end, compressed alike, in
   * every Spark version): renamed, it is that state's snapshot.
   */
  public static String asSnapshot(String name, long version) {
    Matcher m = VERSION_FILE.matcher(name);
    if (!m.matches()) throw new IllegalArgumentException("not a store file: " + name);
    return name.substring(0, m.start(1))
        + version
        + (m.group(2) == null ? "" : m.group(2))
        + ".snapshot"
        + (m.group(4) == null ? "" : m.group(4));
  }
}
