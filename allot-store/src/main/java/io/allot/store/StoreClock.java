package io.allot.store;

/**
 * The store's clock (Redis {@code TIME}, PostgreSQL {@code clock_timestamp()}, the memory store's monotonic clock).
 * Lease expiry is judged by this clock inside the store's atomic steps; callers read it only to compare against
 * expiry times the store reported (e.g. {@link MemberRecord#liveAt(long)}).
 */
public interface StoreClock {

  /** The store's time in milliseconds since the epoch, never the host's. */
  long timeMillis();
}
