package io.allot.server.config;

import java.math.BigDecimal;
import java.time.Duration;

/** Parses durations the way Go's {@code time.ParseDuration} does: {@code 500ms}, {@code 2s}, {@code 1m30s}, {@code 1.5h}. */
public final class GoDuration {
  private GoDuration() {}

  /**
   * Parses a Go duration. Units: ns, us (or µs), ms, s, m, h. A bare {@code 0} is allowed.
   *
   * @param what the flag or variable being parsed, for the error message
   * @throws IllegalArgumentException naming {@code what} and the bad value
   */
  public static Duration parse(String text, String what) {
    String s = text == null ? "" : text.trim();
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    if (s.isEmpty()) {
      throw bad(text, what);
    }
    boolean negative = false;
    int i = 0;
    if (s.charAt(0) == '-' || s.charAt(0) == '+') {
      negative = s.charAt(0) == '-';
      i = 1;
    }
    if (i == s.length()) {
      throw bad(text, what);
    }
    BigDecimal nanos = BigDecimal.ZERO;
    while (i < s.length()) {
      int start = i;
      while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
        i++;
      }
      if (start == i) {
        throw bad(text, what);
      }
      BigDecimal number;
      try {
        number = new BigDecimal(s.substring(start, i));
      } catch (NumberFormatException e) {
        throw bad(text, what);
      }
      int unitStart = i;
      while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
        i++;
      }
      String unit = s.substring(unitStart, i);
      long scale =
          switch (unit) {
            case "ns" -> 1L;
            case "us", "µs", "μs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> throw bad(text, what);
          };
      nanos = nanos.add(number.multiply(BigDecimal.valueOf(scale)));
    }
    if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException(what + ": duration " + text + " is too large");
    }
    long n = nanos.longValue();
    return Duration.ofNanos(negative ? -n : n);
  }

  /** Parses a positive duration. */
  public static Duration parsePositive(String text, String what) {
    Duration d = parse(text, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + ": duration must be greater than 0, got '" + text + "'");
    }
    return d;
  }

  /** Formats like Go: {@code 1.5s}, {@code 500ms}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 1000 == 0) {
      return (ms / 1000) + "s";
    }
    return ms + "ms";
  }

  private static IllegalArgumentException bad(String text, String what) {
    return new IllegalArgumentException(
        what + ": invalid duration '" + text + "' (expected a Go duration such as 500ms, 2s, 1m30s)");
  }
}
