package io.allot.store;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a store does to keep ownership exclusive when its own guarantees are weaker than they look, and what it found
 * about its durability when it connected. Each store takes the two durations from its URI ({@code guard=},
 * {@code clock_margin=}) or its config.
 *
 * @param lostStateGuard how long claims in a pool wait after any sign that the store lost state (restart without
 *                       persistence, rollback, failover to a replica, counter re-seeded): every lease granted
 *                       before must have run out, so this must be at least the longest member lease TTL (default
 *                       3 s = 3 &times; the SDK's default 1 s)
 * @param clockMargin    how long past its expiry (store time) an owner's lease must be before a claim may take its
 *                       unit: a forward step of the store's clock smaller than this is harmless (default 200 ms)
 * @param lossPossible   true if the store's settings allow it to lose acknowledged writes (e.g. Redis without
 *                       {@code appendfsync always}, PostgreSQL with {@code synchronous_commit=off}); the guard covers
 *                       that, at the price of a wait after each restart
 * @param findings       what the connect-time check found, one line each naming the setting (empty: nothing to say)
 */
public record Safety(Duration lostStateGuard, Duration clockMargin, boolean lossPossible, List<String> findings) {

  /** The default guard: 3 s. */
  public static final Duration DEFAULT_GUARD = Duration.ofSeconds(3);
  /** The default clock margin: 200 ms. */
  public static final Duration DEFAULT_CLOCK_MARGIN = Duration.ofMillis(200);

  public Safety {
    Objects.requireNonNull(lostStateGuard, "lostStateGuard");
    Objects.requireNonNull(clockMargin, "clockMargin");
    if (lostStateGuard.isNegative()) {
      throw new IllegalArgumentException("lostStateGuard must be >= 0 but was " + lostStateGuard);
    }
    if (clockMargin.isNegative()) {
      throw new IllegalArgumentException("clockMargin must be >= 0 but was " + clockMargin);
    }
    findings = List.copyOf(findings);
  }

  /** The defaults, with no findings. */
  public static Safety defaults(boolean lossPossible) {
    return new Safety(DEFAULT_GUARD, DEFAULT_CLOCK_MARGIN, lossPossible, List.of());
  }
}
