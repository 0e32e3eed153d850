package io.allot.store;

import java.time.Duration;

/**
 * The one rule for every {@link Duration} a builder or a store call takes: it lies between a lower and an upper bound,
 * else an {@link IllegalArgumentException} names the setting, the bounds and the value ({@code leaseTtl: must be
 * between 1 ms and 1 day but was PT7200000H}). The upper bounds keep every value far from what {@code long}
 * nanoseconds hold ({@link Duration#toNanos()} overflows past about 292 years), and name what a setting is for.
 */
public final class Durations {
  /** Leases, TTLs, renewal, polling and sync intervals, heartbeats, connection timeouts, drain and shutdown waits. */
  public static final Duration MAX_TIMEOUT = Duration.ofDays(1);
  /** Holds, backoffs, failure windows, lost-state guards (as long as a handler's {@code RetryAfter}). */
  public static final Duration MAX_HOLD = Duration.ofDays(30);
  /** Job delays, retry backoffs and purge ages in a store (a century, what Redis keeps at most). */
  public static final Duration MAX_DELAY = Duration.ofDays(36_500);
  /** The lower bound of a setting that must be positive. */
  public static final Duration POSITIVE = Duration.ofNanos(1);

  private Durations() {}

  /**
   * {@code d}, checked: not null, {@code min <= d <= max}.
   *
   * @param name the setting, first in the message
   * @throws IllegalArgumentException naming the setting, the bounds and the value
   */
  public static Duration check(String name, Duration d, Duration min, Duration max) {
    if (d == null || d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      String range = min.equals(POSITIVE) ? "positive and at most " + show(max)
          : "between " + show(min) + " and " + show(max);
      throw new IllegalArgumentException(name + ": must be " + range + " but was " + d);
    }
    return d;
  }

  /** A bound for messages: {@code 0}, {@code 30 ms}, {@code 1 s}, {@code 1 day}, {@code 30 days}. */
  static String show(Duration d) {
    if (d.isZero()) {
      return "0";
    }
    long days = d.toDays();
    if (Duration.ofDays(days).equals(d)) {
      return days + (days == 1 ? " day" : " days");
    }
    if (Duration.ofSeconds(d.getSeconds()).equals(d)) {
      return d.getSeconds() + " s";
    }
    return d.getNano() % 1_000_000 == 0 ? d.toMillis() + " ms" : d.toString();
  }
}
