package dev.sparksavepoint.commit;

/**
 * Named points of a write's commit protocol where a test can stop this JVM as abruptly as
 * {@code kill -9} ({@code Runtime.halt}: no finally blocks, no shutdown hooks). Off unless the
 * system property {@value #PROPERTY} names a point; tests/test_write_crash.py sets it in a
 * writer process it started for the purpose.
 */
public final class CrashPoint {
  public static final String PROPERTY = "dev.sparksavepoint.haltAt";

  private CrashPoint() {}

  /** Halts the JVM when {@code point} is the one asked for. */
  public static void reach(String point) {
    if (point.equals(System.getProperty(PROPERTY))) {
      System.err.println("spark-savepoint: halting at crash point '" + point + "' (test)");
      Runtime.getRuntime().halt(137);
    }
  }
}
