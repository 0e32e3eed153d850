package io.allot.store.tasks;

import java.nio.charset.StandardCharsets;

/**
 * The limits every store enforces on task specs, checked before anything is written: bad input gets an
 * {@link IllegalArgumentException} naming it, and nothing of the request is applied.
 */
public final class TaskLimits {
  /** The longest task name, in characters. */
  public static final int MAX_NAME_CHARS = 200;
  /** The largest arguments: 64 KiB of UTF-8 (they travel with every start; bulk data belongs elsewhere). */
  public static final int MAX_ARGS_BYTES = 64 * 1024;
  /** The largest cost. */
  public static final int MAX_COST = 1_000_000;
  /** Errors are cut to this many characters when stored. */
  public static final int MAX_ERROR_CHARS = 2000;

  private TaskLimits() {}

  /**
   * Checks a task name: 1 to {@value #MAX_NAME_CHARS} characters of {@code [A-Za-z0-9._:@-]}, starting with a letter
   * or digit. (Names become units of the assignment table, whose encoding separates them with commas, and path
   * segments of the REST API.)
   *
   * @return the name
   */
  public static String checkName(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("task name must be non-empty but was " + (name == null ? "null" : "''"));
    }
    if (name.length() > MAX_NAME_CHARS) {
      throw new IllegalArgumentException("task name is " + name.length() + " characters; at most " + MAX_NAME_CHARS);
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      if (!(alnum || (i > 0 && (c == '.' || c == '_' || c == ':' || c == '@' || c == '-')))) {
        throw new IllegalArgumentException("task name '" + printable(name) + "' has a bad character at " + i
            + ": use letters, digits and . _ : @ - (starting with a letter or digit)");
      }
    }
    return name;
  }

  /**
   * Checks arguments: not null, at most {@value #MAX_ARGS_BYTES} bytes of UTF-8, text that every store can keep
   * verbatim: no unpaired surrogate (UTF-8 has no encoding for it) and no NUL character (PostgreSQL text cannot hold
   * it; JSON escapes it). (Whether they are JSON is the API's check; the store keeps the text verbatim.)
   *
   * @return the arguments
   */
  public static String checkArgs(String args) {
    if (args == null) {
      throw new IllegalArgumentException("task args must not be null (use \"{}\")");
    }
    int bad = unstorableAt(args);
    if (bad >= 0) {
      throw new IllegalArgumentException("task args hold " + (args.charAt(bad) == 0 ? "a NUL character"
          : "an unpaired surrogate") + " at " + bad + ": not text every store can keep");
    }
    if (args.length() > MAX_ARGS_BYTES / 3) {
      int bytes = args.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > MAX_ARGS_BYTES) {
        throw new IllegalArgumentException("task args are " + bytes + " bytes; at most " + MAX_ARGS_BYTES);
      }
    }
    return args;
  }

  /** The index of the first NUL or unpaired surrogate in {@code s}, or -1. */
  static int unstorableAt(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == 0) {
        return i;
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      }
    }
    return -1;
  }

  /** {@code s} with every NUL and unpaired surrogate replaced by U+FFFD: text every store keeps verbatim. */
  static String storable(String s) {
    if (unstorableAt(s) < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == 0) {
        b.append('\uFFFD');
      } else if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          b.append(c).append(s.charAt(++i));
        } else {
          b.append('\uFFFD');
        }
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /**
   * Checks a cost: 1 to {@value #MAX_COST}.
   *
   * @return the cost
   */
  public static int checkCost(int cost) {
    if (cost < 1 || cost > MAX_COST) {
      throw new IllegalArgumentException("task cost must be 1 to " + MAX_COST + " but was " + cost);
    }
    return cost;
  }

  private static String printable(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && i < 100; i++) {
      char c = s.charAt(i);
      b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return s.length() > 100 ? b + "..." : b.toString();
  }
}
