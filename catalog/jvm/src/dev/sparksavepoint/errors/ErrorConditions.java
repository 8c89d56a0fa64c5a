package dev.sparksavepoint.errors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The error registry: every {@code SAVEPOINT_*} class and its SQLSTATE, read once from the jar's
 * copy of {@code catalog/error-conditions.json} (the resource {@value #RESOURCE}, like Spark's
 * own {@code error/error-conditions.json}). The same file gives each class's Python exception,
 * meaning and fix to {@code catalog/errors.py} and {@code docs/errors.md}. A class the registry
 * lacks is a bug of ours and fails loudly: {@link #sqlState} throws.
 */
public final class ErrorConditions {
  static final String RESOURCE = "/dev/sparksavepoint/errors/error-conditions.json";

  private static final Map<String, String> SQL_STATES = load();

  private ErrorConditions() {}

  /** Every registered class, in the registry's order. */
  static Set<String> names() {
    return SQL_STATES.keySet();
  }

  /**
   * The SQLSTATE of {@code errorClass}; an {@code IllegalStateException} naming the class and the
   * {@code message} it was to carry when the registry lacks it.
   */
  public static String sqlState(String errorClass, String message) {
    String state = SQL_STATES.get(errorClass);
    if (state == null) {
      throw new IllegalStateException(
          "[SAVEPOINT_INTERNAL] error class "
              + errorClass
              + " is not in the error registry (catalog/error-conditions.json, "
              + RESOURCE
              + " in the spark-savepoint jar); please report this. The error was: ["
              + errorClass
              + "] "
              + message);
    }
    return state;
  }

  private static Map<String, String> load() {
    try (InputStream in = ErrorConditions.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "[SAVEPOINT_INTERNAL] the spark-savepoint jar has no "
                + RESOURCE
                + ": rebuild it (spark_savepoint.catalog.jar.build)");
      }
      Map<String, String> states = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> entry : new ObjectMapper().readTree(in).properties()) {
        String state = entry.getValue().path("sqlState").asText("");
        if (!state.matches("[0-9A-Z]{5}")) {
          throw new IllegalStateException(
              "[SAVEPOINT_INTERNAL] "
                  + RESOURCE
                  + ": "
                  + entry.getKey()
                  + " has no SQLSTATE of five letters or digits: '"
                  + state
                  + "'");
        }
        states.put(entry.getKey(), state);
      }
      return Collections.unmodifiableMap(states);
    } catch (IOException e) {
      throw new UncheckedIOException("[SAVEPOINT_INTERNAL] cannot read " + RESOURCE, e);
    }
  }
}
