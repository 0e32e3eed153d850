package io.allot.store.events;

import java.time.Duration;

/**
 * How much history a store keeps: at most {@code perPool} events per pool (store-wide events count as one pool of
 * their own) and none older than {@code maxAge}. Applied on every {@link Events#append append}: the oldest events
 * beyond it are deleted then.
 *
 * @param perPool 1..1 000 000
 * @param maxAge at least one second
 */
public record EventRetention(int perPool, Duration maxAge) {
  /** 10 000 events per pool, 7 days. */
  public static final EventRetention DEFAULT = new EventRetention(10_000, Duration.ofDays(7));

  /** Checks the bounds; {@link IllegalArgumentException} naming the bad one. */
  public EventRetention {
    if (perPool < 1 || perPool > 1_000_000) {
      throw new IllegalArgumentException("perPool: must be in 1..1000000 but was " + perPool);
    }
    if (maxAge == null || maxAge.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("maxAge: must be at least 1s but was " + maxAge);
    }
  }
}
