package io.allot.store;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What the distributor (control plane) and the workers need from a shared store. Implementations: the embedded
 * {@code io.allot.store.memory.MemoryStore} and {@code io.allot.store.redis.RedisStore} (standalone or Cluster).
 * Every implementation is thread-safe and passes {@code StoreContractTest} (published in allot-store's test-jar).
 *
 * <h2>Seed-compatible layout</h2>
 * Lists and hashes keep the layout of the original Go distributor: a services list where a member {@code LPUSH}es
 * itself, a work-units list, and a distribution hash {@code member -> "u1,u2,..."}. They behave like Redis lists
 * and hashes: a missing key reads as empty, an empty list or hash does not exist. Using a list key as a hash (or the
 * reverse) fails with {@link IllegalStateException} (Redis {@code WRONGTYPE}).
 *
 * <h2>Leases</h2>
 * One lease per name; whoever holds it gets a fencing token that strictly increases with every acquisition of that
 * name (tokens are seeded from the store clock in microseconds when a name has no token yet, so they keep
 * increasing even if the store lost its data). A lease expires by the store's clock, never the caller's. Holding
 * a lease does not make a second {@code tryAcquire} by the same holder succeed: it is not re-entrant.
 *
 * <h2>Fenced publication</h2>
 * Several groups (e.g. distributors of different services lists) may share one distribution hash; each owns the
 * fields it wrote. {@link #publish} checks the group's lease and writes in one atomic step, so a deposed leader
 * can never overwrite the table. The lease to pass is the one acquired under
 * {@link #tableLeaseName(String, String) tableLeaseName(hashKey, group)}; in Redis Cluster this places the lease in
 * the hash's slot so one script can check it.
 *
 * <h2>Notifications</h2>
 * Pub/sub is a hint, not a log: a message published while a subscriber is disconnected is lost. Consumers must also
 * poll (e.g. {@link #epoch(String)} every sync interval) — level-triggered reconciliation.
 *
 * <h2>Failures</h2>
 * An unreachable or timed-out store raises {@link StoreUnavailableException}; a write that failed that way may or
 * may not have been applied. All writes here are safe to retry.
 */
public interface Store extends AutoCloseable {

  // ---- seed-compatible layout (Redis list / hash semantics)

  /** {@code LRANGE key 0 -1}: the whole list, head first; empty if missing. */
  List<String> list(String key);

  /** {@code LPUSH key value} only if {@code value} is not in the list yet, atomically; true if added. */
  boolean addToList(String key, String value);

  /** {@code LREM key 0 value}: removes every occurrence; true if at least one was removed. */
  boolean removeFromList(String key, String value);

  /** {@code HGETALL key}; empty if missing. */
  Map<String, String> hash(String key);

  /** {@code HGET key field}; null if the hash or the field is missing. */
  String hashField(String key, String field);

  /**
   * Atomically replaces the list content with {@code values} in this order (head first); an empty list deletes
   * the key. For tests and demos.
   */
  void replaceList(String key, List<String> values);

  /** The store's clock in milliseconds since the epoch (Redis {@code TIME}), never the host's. */
  long timeMillis();

  // ---- leadership

  /**
   * Acquires lease {@code name} for {@code holder} for {@code ttl} (at least 1 ms) if nobody holds it, with a new
   * fencing token greater than every token issued for {@code name} before.
   *
   * @return the lease, or empty if it is held (by anyone, including {@code holder} itself)
   */
  Optional<Lease> tryAcquire(String name, String holder, Duration ttl);

  /**
   * Extends the lease to expire {@code ttl} from now (store time), only if it is still held by
   * {@code lease.holder()} with {@code lease.token()}.
   *
   * @return false if the lease expired, was released or was acquired by someone else (or again)
   */
  boolean renew(Lease lease, Duration ttl);

  /** Releases the lease only if it is still held with this holder and token (compare-and-delete). */
  void release(Lease lease);

  /** The current holder of {@code name}, if any. */
  Optional<Lease> currentLeader(String name);

  // ---- fenced publication of one group's part of a distribution hash

  /**
   * Atomically, if {@code lease} is still the current lease for its name: sets every field of {@code fields},
   * deletes the fields this group wrote last time that are not in {@code fields} (but never a field another group
   * wrote since: the last writer of a field owns it), increments the hash's epoch and publishes
   * {@code "<epoch>"} on {@link #notifyChannel(String) notifyChannel(hashKey)}.
   *
   * @param lease the group's lease; its name must be {@link #tableLeaseName(String, String) tableLeaseName(hashKey,
   *              group)}, otherwise {@link IllegalArgumentException}
   * @return the new epoch
   * @throws FencedException if the lease is not current (nothing changed)
   */
  long publish(Lease lease, String hashKey, String group, Map<String, String> fields);

  /** The epoch of the distribution hash {@code hashKey}: 0 if never published. */
  long epoch(String hashKey);

  /** The channel {@link #publish} notifies for {@code hashKey}. */
  static String notifyChannel(String hashKey) {
    return "allot:notify:" + hashKey;
  }

  /**
   * The lease name under which {@code group} publishes into {@code hashKey}: {@code hashKey + ":" + group}.
   * (Addition to the sketch.) A store may place leases whose name contains ':' next to the key before the last ':'
   * (Redis Cluster does), which is why a group name must not contain ':'.
   *
   * @throws IllegalArgumentException if {@code hashKey} is empty, or {@code group} is empty or contains ':'
   */
  static String tableLeaseName(String hashKey, String group) {
    if (hashKey == null || hashKey.isEmpty()) {
      throw new IllegalArgumentException("hash key must not be empty");
    }
    if (group == null || group.isEmpty() || group.indexOf(':') >= 0) {
      throw new IllegalArgumentException("group must be non-empty and contain no ':' but was '" + group + "'");
    }
    return hashKey + ":" + group;
  }

  // ---- membership: worker leases, per pool (a pool is named by its services list key)

  /**
   * Registers member {@code id} in {@code pool}: adds it to the services list {@code pool} if absent,
   * records its affinity and capacity, starts a lease of {@code ttl} (store time) and returns a new
   * session number, larger than any before in this pool. A previous session of the same id is
   * superseded: its renewals fail and the units it owned may be claimed. Announces the change on
   * {@link #membersChannel(String)}.
   */
  long register(String pool, String id, int affinity, int capacity, Duration ttl);

  /**
   * Extends the lease of {@code (id, session)} to now + {@code ttl}. Returns false, and changes
   * nothing, if that session is not the current one or its lease already expired: an expired lease
   * is never revived (its units may already run elsewhere), the member must register again.
   */
  boolean renewMember(String pool, String id, long session, Duration ttl);

  /**
   * Changes the affinity and capacity of {@code (id, session)}; false if the session is not current
   * or expired. Announces the change on {@link #membersChannel(String)}.
   */
  boolean updateMember(String pool, String id, long session, int affinity, int capacity);

  /**
   * Removes the registration of {@code (id, session)} (if current): its record, its lease and its
   * entry in the services list. Units it still owns become claimable at once. Announces the change.
   */
  void deregister(String pool, String id, long session);

  /** All registrations of the pool, including expired ones (see {@link MemberRecord#liveAt(long)}). */
  java.util.Map<String, MemberRecord> members(String pool);

  // ---- ownership: at most one owner per unit and pool

  /**
   * Claims {@code unit} for {@code (member, session)}, atomically. Succeeds only if that session is
   * current and its lease is live, and the unit has no owner, or its owner's session is no longer
   * current or its lease has expired (store time), or the owner is this very session (a repeated
   * claim returns the token it already holds). Returns the fencing token; empty if refused.
   */
  java.util.OptionalLong claim(String pool, String unit, String member, long session);

  /**
   * Claims each of {@code units} as {@link #claim} would, in one round trip where the store can; returns unit ->
   * fencing token for the units claimed (refused ones are absent). Each claim is atomic on its own; the batch is
   * not all-or-nothing. The default makes one {@link #claim} per unit.
   */
  default java.util.Map<String, Long> claimAll(String pool, java.util.List<String> units, String member, long session) {
    java.util.Map<String, Long> out = new java.util.LinkedHashMap<>();
    for (String unit : units) {
      java.util.OptionalLong token = claim(pool, unit, member, session);
      if (token.isPresent()) {
        out.put(unit, token.getAsLong());
      }
    }
    return out;
  }

  /**
   * Gives up {@code unit} if {@code (member, token)} still owns it (compare-and-delete); true if
   * released. Announces it on {@link #ownersChannel(String)}, so the next owner can claim at once.
   */
  boolean releaseUnit(String pool, String unit, String member, long token);

  /** The current owners of the pool's units (including owners whose lease has expired). */
  java.util.Map<String, Ownership> owners(String pool);

  /**
   * True if {@code token} is the current token of {@code unit} and its owner's lease is live: the
   * check a fenced write makes (a write carrying a stale token must be rejected).
   */
  boolean validToken(String pool, String unit, long token);

  /**
   * The channel on which registrations, updates and deregistrations of {@code pool} are announced; the message is
   * the member id.
   */
  static String membersChannel(String pool) {
    return "allot:members:" + pool;
  }

  /** The channel on which released units of {@code pool} are announced; the message is the unit. */
  static String ownersChannel(String pool) {
    return "allot:owners:" + pool;
  }

  // ---- change notification

  /**
   * Delivers every message later published on {@code channel} to {@code listener}, in order, on a thread of the
   * store (never the caller's); when this returns, the subscription is active. A listener must not block for long.
   */
  Subscription subscribe(String channel, Consumer<String> listener);

  /** Publishes {@code message} on {@code channel} to the current subscribers. */
  void notify(String channel, String message);

  /** Closes connections and stops notification delivery; later calls fail with {@link IllegalStateException}. */
  @Override
  void close();
}
