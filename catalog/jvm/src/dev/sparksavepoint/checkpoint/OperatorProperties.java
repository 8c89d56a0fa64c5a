package dev.sparksavepoint.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The properties a transformWithState operator records in its v2 operator metadata (its time
 * mode and state variables), parsed once and strictly: what cannot be parsed is an error, never
 * the permissive default (a write must not guess that a variable has no TTL).
 *
 * @param timeMode {@code NoTime}, {@code EventTime}, {@code ProcessingTime}; null when absent
 * @param variables every state variable by name, Spark's internal ones ({@code $...}) included
 */
public record OperatorProperties(String timeMode, Map<String, Variable> variables)
    implements Serializable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The properties of an operator that records none (metadata v1). */
  public static final OperatorProperties NONE = new OperatorProperties(null, Map.of());

  /**
   * One state variable: its type ({@code ValueState}, {@code ListState}, ...) and whether it has
   * a TTL (null when the properties do not say).
   */
  public record Variable(String name, String type, Boolean ttlEnabled) implements Serializable {}

  /**
   * Parses {@code operatorPropertiesJson}.
   *
   * @throws IOException when it is not JSON, or a state variable lacks its name or type
   */
  public static OperatorProperties parse(String json) throws IOException {
    JsonNode props = JSON.readTree(json == null ? "" : json);
    if (props == null || !props.isObject()) throw new IOException("not a JSON object");
    JsonNode list = props.path("stateVariables");
    if (!list.isMissingNode() && !list.isArray()) {
      throw new IOException("stateVariables is not a list");
    }
    Map<String, Variable> variables = new LinkedHashMap<>();
    for (JsonNode var : list) {
      JsonNode name = var.path("stateName");
      JsonNode type = var.path("stateVariableType");
      if (!name.isTextual() || !type.isTextual()) {
        throw new IOException("a state variable without stateName or stateVariableType");
      }
      JsonNode ttl = var.path("ttlEnabled");
      variables.put(
          name.asText(),
          new Variable(name.asText(), type.asText(), ttl.isBoolean() ? ttl.asBoolean() : null));
    }
    JsonNode mode = props.path("timeMode");
    return new OperatorProperties(mode.isMissingNode() ? null : mode.asText(), variables);
  }

  /** True when the operator registers timers (a time mode other than NoTime). */
  public boolean hasTimers() {
    return timeMode != null && !timeMode.equalsIgnoreCase("NoTime");
  }

  /** The user's state variables (not Spark's {@code $}/{@code _} ones): name to type. */
  public Map<String, String> userVariables() {
    Map<String, String> user = new LinkedHashMap<>();
    variables.forEach(
        (name, var) -> {
          if (!name.startsWith("$") && !name.startsWith("_")) user.put(name, var.type());
        });
    return user;
  }
}
