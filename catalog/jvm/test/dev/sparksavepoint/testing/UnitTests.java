package dev.sparksavepoint.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Runs the JVM unit tests without JUnit: every {@link Test} method of every {@code *Test} class
 * under the folder of compiled test classes given as the only argument. Prints each failure and
 * a summary; exits 1 when a test failed (or none was found).
 */
public final class UnitTests {
  private UnitTests() {}

  public static void main(String[] args) throws Exception {
    List<String> failures = new ArrayList<>();
    int tests = 0;
    for (Class<?> type : testClasses(Path.of(args[0]))) {
      for (Method method : testMethods(type)) {
        tests++;
        String name = type.getName() + "." + method.getName();
        try {
          method.invoke(type.getDeclaredConstructor().newInstance());
        } catch (InvocationTargetException e) {
          failures.add(name + ": " + e.getCause());
          System.out.println("FAIL " + name + ": " + e.getCause());
          printWhere(e.getCause());
        }
      }
    }
    System.out.println(
        tests + " tests, " + Assert.count() + " assertions, " + failures.size() + " failed");
    System.exit(failures.isEmpty() && tests > 0 ? 0 : 1);
  }

  private static List<Class<?>> testClasses(Path root) throws Exception {
    List<Class<?>> classes = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted().toList()) {
        String relative = root.relativize(file).toString();
        if (!relative.endsWith("Test.class")) continue;
        String name =
            relative
                .substring(0, relative.length() - ".class".length())
                .replace(file.getFileSystem().getSeparator(), ".");
        classes.add(Class.forName(name));
      }
    }
    return classes;
  }

  private static List<Method> testMethods(Class<?> type) {
    List<Method> methods = new ArrayList<>();
    for (Method method : type.getMethods()) {
      if (method.isAnnotationPresent(Test.class) && !Modifier.isStatic(method.getModifiers())) {
        methods.add(method);
      }
    }
    methods.sort(Comparator.comparing(Method::getName));
    return methods;
  }

  /** The first stack frame of the failure inside a test class. */
  private static void printWhere(Throwable failure) {
    for (StackTraceElement frame : failure.getStackTrace()) {
      if (frame.getClassName().endsWith("Test")) {
        System.out.println("  at " + frame);
        return;
      }
    }
  }
}
