package io.allot.store;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a member publishes about itself: its affinity (weight; 0 = no units), its capacity (most units at once) and
 * open attributes such as {@code version}, {@code zone} and labels, which routing policies read. Immutable.
 *
 * @param affinity   the weight, at least 0 (default 1)
 * @param capacity   the most units at once, at least 0 ({@link Integer#MAX_VALUE} = no limit, the default)
 * @param attributes name to value; names are 1–64 characters of {@code [A-Za-z0-9._-]}, values at most 256
 *                   characters; at most 32 attributes. Sorted by name.
 */
public record MemberMeta(int affinity, int capacity, Map<String, String> attributes) {

  /** Affinity 1, no capacity limit, no attributes. */
  public static final MemberMeta DEFAULT = new MemberMeta(1, Integer.MAX_VALUE, Map.of());

  /** The attribute holding the member's software version (routing's canary policy reads it). */
  public static final String VERSION = "version";
  /** The attribute holding the member's zone. */
  public static final String ZONE = "zone";

  static final int MAX_ATTRIBUTES = 32;
  static final int MAX_VALUE_LENGTH = 256;

  public MemberMeta {
    if (affinity < 0) {
      throw new IllegalArgumentException("affinity must be >= 0 but was " + affinity);
    }
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0 but was " + capacity);
    }
    Objects.requireNonNull(attributes, "attributes");
    if (attributes.size() > MAX_ATTRIBUTES) {
      throw new IllegalArgumentException("at most " + MAX_ATTRIBUTES + " attributes but got " + attributes.size());
    }
    TreeMap<String, String> sorted = new TreeMap<>();
    attributes.forEach((k, v) -> {
      checkName(k);
      if (v == null || v.length() > MAX_VALUE_LENGTH) {
        throw new IllegalArgumentException("attribute '" + k + "' must have a value of at most " + MAX_VALUE_LENGTH
            + " characters but was " + (v == null ? "null" : v.length() + " characters"));
      }
      sorted.put(k, v);
    });
    attributes = Collections.unmodifiableMap(sorted);
  }

  /** Affinity and capacity, no attributes. */
  public static MemberMeta of(int affinity, int capacity) {
    return new MemberMeta(affinity, capacity, Map.of());
  }

  /** A copy with another affinity. */
  public MemberMeta withAffinity(int affinity) {
    return new MemberMeta(affinity, capacity, attributes);
  }

  /** A copy with another capacity. */
  public MemberMeta withCapacity(int capacity) {
    return new MemberMeta(affinity, capacity, attributes);
  }

  /** A copy with attribute {@code name} set to {@code value} (or removed when {@code value} is null). */
  public MemberMeta with(String name, String value) {
    TreeMap<String, String> next = new TreeMap<>(attributes);
    if (value == null) {
      next.remove(name);
    } else {
      next.put(name, value);
    }
    return new MemberMeta(affinity, capacity, next);
  }

  /** The {@value #VERSION} attribute, or null. */
  public String version() {
    return attributes.get(VERSION);
  }

  /** The {@value #ZONE} attribute, or null. */
  public String zone() {
    return attributes.get(ZONE);
  }

  /**
   * The attributes as {@code name=value&...} with form encoding (UTF-8), empty when there are none: the form stores
   * keep them in. The inverse of {@link #decodeAttributes(String)}.
   */
  public String encodeAttributes() {
    StringBuilder sb = new StringBuilder();
    attributes.forEach((k, v) -> {
      if (sb.length() > 0) {
        sb.append('&');
      }
      sb.append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
    });
    return sb.toString();
  }

  /**
   * Parses what {@link #encodeAttributes()} wrote; null or empty gives no attributes.
   *
   * @throws IllegalArgumentException if {@code encoded} is malformed
   */
  public static Map<String, String> decodeAttributes(String encoded) {
    TreeMap<String, String> out = new TreeMap<>();
    if (encoded == null || encoded.isEmpty()) {
      return out;
    }
    for (String pair : encoded.split("&", -1)) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("malformed member attributes '" + encoded + "'");
      }
      out.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return out;
  }

  private static void checkName(String name) {
    if (name == null || name.isEmpty() || name.length() > 64) {
      throw new IllegalArgumentException("attribute name must be 1 to 64 characters but was "
          + (name == null ? "null" : "'" + name + "'"));
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
          || c == '-';
      if (!ok) {
        throw new IllegalArgumentException("attribute name '" + name + "' may hold only A-Z, a-z, 0-9, '.', '_' and"
            + " '-'");
      }
    }
  }
}
