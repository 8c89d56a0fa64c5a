package dev.sparksavepoint.testing;

import java.util.Arrays;
import java.util.Objects;

/** The few assertions the unit tests need; each counts itself for the runner's summary. */
public final class Assert {
  private static int count;

  private Assert() {}

  /** Something a test expects to throw. */
  @FunctionalInterface
  public interface Action {
    void run() throws Exception;
  }

  static int count() {
    return count;
  }

  public static void assertEquals(Object expected, Object actual) {
    assertEquals(expected, actual, "");
  }

  public static void assertEquals(Object expected, Object actual, String what) {
    count++;
    boolean same =
        expected instanceof Object[] e && actual instanceof Object[] a
            ? Arrays.deepEquals(e, a)
            : Objects.equals(expected, actual);
    if (!same) {
      throw new AssertionError(
          (what.isEmpty() ? "" : what + ": ")
              + "expected <"
              + render(expected)
              + "> but was <"
              + render(actual)
              + ">");
    }
  }

  public static void assertTrue(boolean condition, String what) {
    count++;
    if (!condition) throw new AssertionError("expected true: " + what);
  }

  public static void assertFalse(boolean condition, String what) {
    assertTrue(!condition, "expected false: " + what);
  }

  /** Runs {@code action}, which must throw a {@code type}; returns what it threw. */
  public static <T extends Throwable> T assertThrows(Class<T> type, Action action) {
    count++;
    try {
      action.run();
    } catch (Throwable thrown) {
      if (type.isInstance(thrown)) return type.cast(thrown);
      throw new AssertionError("expected " + type.getSimpleName() + " but got " + thrown, thrown);
    }
    throw new AssertionError("expected " + type.getSimpleName() + " but nothing was thrown");
  }

  /** Asserts that {@code text} contains {@code part}. */
  public static void assertContains(String part, String text) {
    count++;
    if (text == null || !text.contains(part)) {
      throw new AssertionError("expected <" + text + "> to contain <" + part + ">");
    }
  }

  private static String render(Object value) {
    return value instanceof Object[] array ? Arrays.deepToString(array) : String.valueOf(value);
  }
}
