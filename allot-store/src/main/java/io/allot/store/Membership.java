package io.allot.store;

import java.time.Duration;
import java.util.Map;

/**
 * The members of one pool: each registration is a <em>session</em> with a lease in store time and
 * {@link MemberMeta metadata} (affinity, capacity, version, zone, labels). Registrations, updates and
 * deregistrations are announced on {@link Topic#members(String)} with the member id as message.
 *
 * <p>For the original layout, registering also adds the id to the services list named like the pool (where an
 * original-style service {@code LPUSH}es itself), and deregistering removes it.
 */
public interface Membership {

  /** The pool this view is scoped to. */
  String pool();

  /**
   * Registers member {@code id} with {@code meta} and a lease of {@code ttl} (store time); returns a new session
   * number, larger than any before in this pool. A previous session of the same id whose lease has expired is
   * superseded (its units may be claimed); a previous session whose lease is still live is not: the registration
   * fails with {@link MemberConflictException} and changes nothing.
   */
  long register(String id, MemberMeta meta, Duration ttl);

  /**
   * Extends the lease of {@code (id, session)} to now + {@code ttl}. Returns false and changes nothing if that
   * session is not the current one or its lease already expired: an expired lease is never revived.
   */
  boolean renew(String id, long session, Duration ttl);

  /** Replaces the metadata of {@code (id, session)}; false if the session is not current or expired. */
  boolean update(String id, long session, MemberMeta meta);

  /**
   * Removes the registration of {@code (id, session)} if it is current: its record, its lease and its entry in the
   * services list. Units it still owns become claimable at once.
   */
  void deregister(String id, long session);

  /**
   * Removes the registration of {@code (id, session)} only if its lease has expired by at least the store's clock
   * margin ({@link Safety#clockMargin()}), as {@link #deregister} does; a cleanup that can never drop a live member.
   *
   * @return true if removed
   */
  boolean removeIfExpired(String id, long session);

  /** Every registration of the pool by id, including expired ones (see {@link MemberRecord#liveAt(long)}). */
  Map<String, MemberRecord> members();
}
