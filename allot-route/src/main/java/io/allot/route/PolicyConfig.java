package io.allot.route;

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Reads one policy's JSON config (as grpc hands it over: maps, strings, booleans, doubles). Every error names the
 * policy and the field: an unknown field, a wrong type, a value out of range.
 */
final class PolicyConfig {
  private final String policy;
  private final Map<String, ?> raw;

  /**
   * @throws IllegalArgumentException naming a field that is not in {@code known}
   */
  PolicyConfig(String policy, Map<String, ?> raw, Set<String> known) {
    this.policy = policy;
    this.raw = raw == null ? Map.of() : raw;
    for (String k : this.raw.keySet()) {
      if (!known.contains(k)) {
        throw bad(k, "unknown field; known: " + (known.isEmpty() ? "none" : known.stream().sorted()
            .collect(Collectors.joining(", "))));
      }
    }
  }

  IllegalArgumentException bad(String field, String why) {
    return new IllegalArgumentException(policy + " config: field '" + field + "': " + why);
  }

  /** An integer field in {@code min..max}, or {@code dflt} when absent. */
  int integer(String field, int dflt, int min, int max) {
    Object v = raw.get(field);
    if (v == null) {
      return dflt;
    }
    return toInt(field, v, min, max);
  }

  private int toInt(String field, Object v, int min, int max) {
    if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
      throw bad(field, "must be an integer but was " + describe(v));
    }
    double d = n.doubleValue();
    if (d < min || d > max) {
      throw bad(field, "must be " + min + ".." + max + " but was " + (long) d);
    }
    return (int) d;
  }

  /** A boolean field, or {@code dflt} when absent. */
  boolean bool(String field, boolean dflt) {
    Object v = raw.get(field);
    if (v == null) {
      return dflt;
    }
    if (!(v instanceof Boolean b)) {
      throw bad(field, "must be true or false but was " + describe(v));
    }
    return b;
  }

  /** A string field that must be one of {@code allowed}, or {@code dflt} when absent. */
  String oneOf(String field, String dflt, List<String> allowed) {
    Object v = raw.get(field);
    if (v == null) {
      return dflt;
    }
    if (!(v instanceof String s) || !allowed.contains(s.toLowerCase(Locale.ROOT))) {
      throw bad(field, "must be one of " + allowed + " but was " + describe(v));
    }
    return s.toLowerCase(Locale.ROOT);
  }

  /** An object of non-negative integer weights ({@code {"v1": 90, "v2": 10}}), or empty when absent. */
  Map<String, Integer> weights(String field) {
    Object v = raw.get(field);
    if (v == null) {
      return Map.of();
    }
    if (!(v instanceof Map<?, ?> m)) {
      throw bad(field, "must be an object of version to weight, e.g. {\"v1\": 90, \"v2\": 10}, but was "
          + describe(v));
    }
    Map<String, Integer> out = new TreeMap<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      String version = String.valueOf(e.getKey());
      if (version.isEmpty()) {
        throw bad(field, "a version must not be empty");
      }
      out.put(version, toInt(field + "." + version, e.getValue(), 0, LiveWeights.MAX_WEIGHT));
    }
    if (!out.isEmpty() && out.values().stream().allMatch(w -> w == 0)) {
      throw bad(field, "at least one weight must be above 0");
    }
    return Collections.unmodifiableMap(out);
  }

  private static String describe(Object v) {
    return v instanceof String s ? "\"" + s + "\"" : String.valueOf(v);
  }
}
