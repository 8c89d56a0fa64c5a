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
}
