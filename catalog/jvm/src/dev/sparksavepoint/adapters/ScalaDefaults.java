package dev.sparksavepoint.adapters;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Spark classes whose constructors gain trailing parameters with Scala default values from one
 * version to the next, built on every version from the leading arguments: the widest public
 * constructor, the rest of its parameters taken from their defaults ({@code
 * $lessinit$greater$default$N}, a static method of the class or of its companion object). Shared
 * by every version, so no adapter copy is needed where only defaults were added.
 *
 * <pre>
 *   OffsetSeqLog log = ScalaDefaults.construct(OffsetSeqLog.class, spark, path);
 * </pre>
 */
public final class ScalaDefaults {
  private ScalaDefaults() {}

  /**
   * {@code new type(given..., defaults...)}.
   *
   * @throws IllegalStateException SAVEPOINT_INTERNAL when this Spark's class cannot be built so
   */
  public static <T> T construct(Class<T> type, Object... given) {
    try {
      Constructor<?> widest = null;
      for (Constructor<?> c : type.getConstructors()) {
        if (widest == null || c.getParameterCount() > widest.getParameterCount()) widest = c;
      }
      if (widest == null || widest.getParameterCount() < given.length) {
        throw new NoSuchMethodException("no constructor of " + given.length + "+ parameters");
      }
      Object[] args = Arrays.copyOf(given, widest.getParameterCount());
      for (int i = given.length; i < args.length; i++) args[i] = defaultValue(type, i + 1);
      return type.cast(widest.newInstance(args));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "[SAVEPOINT_INTERNAL] this Spark's " + type.getName() + " cannot be built: " + e, e);
    }
  }

  private static Object defaultValue(Class<?> type, int parameter)
      throws ReflectiveOperationException {
    String name = "$lessinit$greater$default$" + parameter;
    try {
      return type.getMethod(name).invoke(null);
    } catch (NoSuchMethodException e) {
      Class<?> companion = Class.forName(type.getName() + "$", true, type.getClassLoader());
      Object module = companion.getField("MODULE$").get(null);
      Method method = companion.getMethod(name);
      return method.invoke(module);
    }
  }
}
