package io.allot.store;

import java.time.Duration;
import java.util.Optional;

/**
 * Named leases with fencing tokens. One holder per name at a time; each acquisition of a name gets a token larger
 * than every token issued for that name before (tokens are seeded from the store clock in microseconds when a name
 * has none, so they keep increasing even after the store lost its data). A lease expires by the store's clock.
 * Leases are not re-entrant: {@link #tryAcquire} by the current holder returns empty; {@link #renew} instead.
 */
public interface Leadership {

  /**
   * Acquires {@code name} for {@code holder} for {@code ttl} (at least 1 ms) if nobody holds it.
   *
   * @return the lease with its new token, or empty if it is held (by anyone, including {@code holder})
   */
  Optional<Lease> tryAcquire(String name, String holder, Duration ttl);

  /**
   * Extends the lease to expire {@code ttl} from now (store time), only if it is still held with this holder and
   * token.
   *
   * @return false if the lease expired, was released or was acquired again (by anyone)
   */
  boolean renew(Lease lease, Duration ttl);

  /** Releases the lease only if it is still held with this holder and token (compare-and-delete). */
  void release(Lease lease);

  /** The current holder of {@code name}, if any. */
  Optional<Lease> current(String name);
}
