package dev.sparksavepoint.adapters;

import java.util.Map;

/**
 * Session settings Spark's state data source needs to read outside a streaming query: none on
 * Spark 4.3 and later.
 */
public final class ReaderSettings {
  private ReaderSettings() {}

  /** The settings, by name. */
  public static Map<String, String> needed() {
    return Map.of();
  }
}
