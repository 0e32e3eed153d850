package io.allot.jobs;

import io.allot.store.Durations;
import java.time.Duration;

/**
 * How long a failed job waits before its next attempt: {@code initial × multiplier^(attempt − 1)}, at most
 * {@code max}. Deterministic (no jitter: jobs failing together spread out by their own timing and the claim order).
 *
 * @param initial    the wait after the first failed attempt (0 to 30 days, {@link Durations#MAX_HOLD})
 * @param multiplier growth per further attempt (≥ 1)
 * @param max        the longest wait (initial to 30 days)
 */
public record Backoff(Duration initial, double multiplier, Duration max) {
  /** 1 s, doubling, at most 10 min. */
  public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10));

  public Backoff {
    Durations.check("backoff initial", initial, Duration.ZERO, Durations.MAX_HOLD);
    Durations.check("backoff max", max, Duration.ZERO, Durations.MAX_HOLD);
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("backoff multiplier must be >= 1 but was " + multiplier);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("backoff max must be >= initial (" + initial + ") but was " + max);
    }
  }

  /** The same wait after every failure. */
  public static Backoff fixed(Duration wait) {
    return new Backoff(wait, 1.0, wait);
  }

  /** The wait after failed attempt number {@code attempt} (from 1). */
  public Duration after(int attempt) {
    double nanos = initial.toNanos() * Math.pow(multiplier, Math.max(0, attempt - 1));
    return nanos >= max.toNanos() ? max : Duration.ofNanos((long) nanos);
  }
}
