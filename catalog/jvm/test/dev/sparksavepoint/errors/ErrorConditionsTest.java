package dev.sparksavepoint.errors;

import static dev.sparksavepoint.testing.Assert.assertContains;
import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertThrows;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.Test;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.AnalysisException;

/** The error registry in the jar, and every class {@link Errors} raises registered in it. */
public class ErrorConditionsTest {
  /**
   * Factories that take the class as an argument rather than raising one of their own, or raise
   * one only when the cause is Spark's refusal ({@code newerLog}).
   */
  private static final Set<String> PASS_THROUGH =
      Set.of("analysis", "exception", "rejected", "rethrow", "newerLog");

  @Test
  public void everyClassErrorsRaisesIsRegisteredWithItsSqlState() throws Exception {
    Set<String> raised = new TreeSet<>();
    for (Method factory : Errors.class.getDeclaredMethods()) {
      if (!isFactory(factory)) continue;
      Object[] arguments = new Object[factory.getParameterCount()];
      for (int i = 0; i < arguments.length; i++) {
        arguments[i] = sample(factory.getParameterTypes()[i], factory.getName());
      }
      SparkThrowable error = raise(factory, arguments);
      assertTrue(
          ErrorConditions.names().contains(error.getCondition()),
          factory.getName() + " raises " + error.getCondition() + ", which is registered");
      assertEquals(
          ErrorConditions.sqlState(error.getCondition(), ""),
          error.getSqlState(),
          factory.getName() + "'s SQLSTATE");
      raised.add(error.getCondition());
    }
    assertTrue(raised.size() >= 40, "the factories raise " + raised.size() + " classes");
  }

  @Test
  public void theRegistryKeepsEachClassSqlState() {
    assertEquals("42P01", ErrorConditions.sqlState("SAVEPOINT_NO_SUCH_STATE", ""));
    assertEquals("25006", ErrorConditions.sqlState("SAVEPOINT_READ_ONLY", ""));
    assertEquals("42000", Errors.exception("SAVEPOINT_PATH_NOT_SET", "m").getSqlState());
    assertTrue(ErrorConditions.names().contains("SAVEPOINT_JAR"), "Python's classes too");
  }

  @Test
  public void aClassTheRegistryLacksFailsLoudly() {
    IllegalStateException unknown =
        assertThrows(
            IllegalStateException.class,
            () -> Errors.exception("SAVEPOINT_NOT_REGISTERED", "Some refusal."));
    assertContains(
        "error class SAVEPOINT_NOT_REGISTERED is not in the error registry", unknown.getMessage());
    assertContains("[SAVEPOINT_NOT_REGISTERED] Some refusal.", unknown.getMessage());
    assertThrows(
        IllegalStateException.class,
        () -> Errors.rejected("SAVEPOINT_NOT_REGISTERED", "In a task."));
  }

  @Test
  public void aLogOfANewerSparkIsNamedAsSuch() {
    Exception spark =
        new IllegalStateException(
            "Failed to read log file file:/data/ckpt/commits/1. [INVALID_LOG_VERSION"
                + ".MAX_SUPPORTED_VERSION] UnsupportedLogVersion. The maximum supported log"
                + " version is v3, but encountered v99. The log file was produced by a newer"
                + " version of Spark and cannot be read by this version.");
    AnalysisException error =
        assertThrows(
            AnalysisException.class,
            () -> Errors.newerLog("/data/ckpt", new RuntimeException("schema", spark)));
    assertEquals("SAVEPOINT_SPARK_VERSION", error.getCondition(), "class");
    assertContains(
        "File commits/1 of checkpoint '/data/ckpt' was written by a newer Spark",
        error.getMessage());
    assertContains("(log version v99; Spark ", error.getMessage());
    assertEquals(null, Errors.newerLog("/data/ckpt", new IOException("disk gone")), "other");
  }

  private static boolean isFactory(Method method) {
    int modifiers = method.getModifiers();
    return Modifier.isPublic(modifiers)
        && Modifier.isStatic(modifiers)
        && RuntimeException.class.isAssignableFrom(method.getReturnType())
        && !PASS_THROUGH.contains(method.getName());
  }

  private static Object sample(Class<?> type, String factory) {
    if (type == String.class) return "x";
    if (type == long.class) return 1L;
    if (type == int.class) return 1;
    if (type == boolean.class) return false;
    if (type.isAssignableFrom(IOException.class)) return new IOException("disk gone");
    throw new AssertionError(factory + " takes a " + type.getName() + ": add a sample value");
  }

  /** What {@code factory} throws, or the driver-side error of the refusal it returns. */
  private static SparkThrowable raise(Method factory, Object[] arguments) throws Exception {
    Object outcome;
    try {
      outcome = factory.invoke(null, arguments);
    } catch (InvocationTargetException e) {
      outcome = e.getCause();
    }
    if (outcome instanceof Errors.Refusal refusal) {
      return assertThrows(AnalysisException.class, refusal::raise);
    }
    if (outcome instanceof SparkThrowable error) return error;
    throw new AssertionError(
        factory.getName() + " raised no error of ours: " + outcome,
        outcome instanceof Throwable t ? t : null);
  }
}
