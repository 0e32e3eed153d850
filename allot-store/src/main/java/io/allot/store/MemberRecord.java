package io.allot.store;

import java.util.Objects;

/**
 * A registered member of a pool, as the store holds it.
 *
 * @param id               the member id ({@code host:port}, the address the distributor pings)
 * @param meta             what it published: affinity, capacity, attributes
 * @param session          the current registration; a new registration of the same id gets a larger one
 * @param leaseUntilMillis when its lease expires, in store time; in the past = expired
 */
public record MemberRecord(String id, MemberMeta meta, long session, long leaseUntilMillis) {

  public MemberRecord {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(meta, "meta");
  }

  /** Its weight; 0 = give it no units. */
  public int affinity() {
    return meta.affinity();
  }

  /** The most units it accepts ({@link Integer#MAX_VALUE} = no limit). */
  public int capacity() {
    return meta.capacity();
  }

  /** True if the lease is still running at store time {@code nowMillis}. */
  public boolean liveAt(long nowMillis) {
    return leaseUntilMillis > nowMillis;
  }
}
