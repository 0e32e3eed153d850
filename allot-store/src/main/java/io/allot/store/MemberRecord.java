package io.allot.store;

/**
 * A registered member of a pool, as the store holds it.
 *
 * @param id the member id ({@code host:port}, the address the distributor pings)
 * @param affinity its weight; 0 = give it no units
 * @param capacity the most units it accepts ({@link Integer#MAX_VALUE} = no limit)
 * @param session the current registration; a new registration of the same id gets a larger one
 * @param leaseUntilMillis when its lease expires, in store time; in the past = expired
 */
public record MemberRecord(String id, int affinity, int capacity, long session, long leaseUntilMillis) {

  /** True if the lease is still running at store time {@code nowMillis}. */
  public boolean liveAt(long nowMillis) {
    return leaseUntilMillis > nowMillis;
  }
}
