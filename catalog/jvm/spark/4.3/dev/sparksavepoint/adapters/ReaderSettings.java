package dev.sparksavepoint.adapters;

/**
 * Whether Spark's state data source must be kept from reporting to a {@code
 * StateStoreCoordinator} to read outside a streaming query: no on Spark 4.3 and later.
 */
public final class ReaderSettings {
  private ReaderSettings() {}

  /** True when reads need the settings that keep providers from reporting to a coordinator. */
  public static boolean withoutCoordinator() {
    return false;
  }
}
