package io.allot.store.memory;

import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Safety;
import io.allot.store.Topic;
import io.allot.store.UnitHold;
import io.allot.store.spi.ChannelListeners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What the roles of one {@link MemoryStore} share: the store's clock, its safety settings, the one {@link #lock} and
 * the records more than one role reads or writes, with the helpers that read them. Every role class of the memory
 * store ({@link MemorySeedKeys}, {@link MemoryLeadership}, {@link MemoryTables}, {@link MemoryMembership},
 * {@link MemoryOwnership}, {@link MemoryNotifications}, {@link MemoryRouteWeights}) does its whole operation under
 * {@link #lock}, so every operation is atomic against every other, as one Lua script or one SQL function is on the
 * other stores.
 *
 * <p>What is shared, and why under one lock: the seed keys ({@link #data}) are written by {@link MemorySeedKeys}, by
 * {@link MemoryMembership} (a member joins its services list) and by {@link MemoryTables} (a table is a hash);
 * leases by {@link MemoryLeadership} and checked by {@link MemoryTables}' publication; registrations by
 * {@link MemoryMembership} and checked by {@link MemoryOwnership}'s claims; the pool counters and guards by both.
 * Helpers whose name does not say otherwise expect the caller to hold {@link #lock}.
 */
final class MemoryState {
  /** A lease as held: holder, token, expiry (monotonic nanos). */
  record Held(String holder, long token, long expiresAtNanos) {}

  /** A member registration: metadata, session, lease end (monotonic nanos). */
  record Reg(MemberMeta meta, long session, long untilNanos) {}

  /** A unit's owner: member, session, fencing token. */
  record Own(String member, long session, long token) {}

  /** A pool's lost-state guard: the incarnation that stamped it and until when claims wait (monotonic nanos). */
  record Guard(long incarnation, long notBeforeNanos) {}

  /** A pool's live routing weights (unmodifiable) and their revision. */
  record Weights(long revision, SortedMap<String, Integer> weights) {}

  final LongSupplier nanoClock;
  final long originNanos;
  final long originMillis;
  final Safety safety;
  /** Thread-safe on its own; dispatching under {@link #lock} keeps announcements in the order of the changes. */
  final ChannelListeners listeners =
      new ChannelListeners("allot-memory-store-notify", ChannelListeners.NO_HOOKS);

  /** Guards every mutable field of this class and the records every role class keeps. */
  final Object lock = new Object();
  // ---- guarded by lock
  /** The seed keys: values are {@code ArrayList<String>} (list) or {@code LinkedHashMap} (hash). */
  final Map<String, Object> data = new HashMap<>();
  /** Lease name -> the lease held (a released or expired one is removed). */
  final Map<String, Held> leases = new HashMap<>();
  /** Lease name -> the last fencing token issued (kept forever: tokens only grow). */
  final Map<String, Long> leaseTokens = new HashMap<>();
  /** Pool -> member id -> registration. */
  final Map<String, Map<String, Reg>> registrations = new HashMap<>();
  /** Pool -> unit -> owner. */
  final Map<String, Map<String, Own>> ownership = new HashMap<>();
  /** Pool -> the last session number or fencing token issued. */
  final Map<String, Long> poolCounters = new HashMap<>();
  /** Pool -> unit -> hold. */
  final Map<String, Map<String, UnitHold>> holds = new HashMap<>();
  /** Pool -> its lost-state guard. */
  final Map<String, Guard> guards = new HashMap<>();
  /** Pool -> its live routing weights ({@link MemoryRouteWeights}; kept here so a crash forgets them too). */
  final Map<String, Weights> routeWeights = new HashMap<>();
  /** Changes with every crash; 0 = never crashed. */
  long incarnation;
  /** Nano time of the last crash (meaningful when incarnation > 0). */
  long crashedAtNanos;
  // ---- end of guarded by lock
  /** Written under {@link #lock}; volatile so {@link #checkOpen()} may read it without the lock. */
  volatile boolean closed;

  MemoryState(LongSupplier nanoClock, Safety safety) {
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.originNanos = nanoClock.getAsLong();
    this.originMillis = System.currentTimeMillis();
    this.safety = Objects.requireNonNull(safety, "safety");
  }

  /** Forgets every shared record (a restart without persistence). */
  void clear() {
    data.clear();
    leases.clear();
    leaseTokens.clear();
    registrations.clear();
    ownership.clear();
    poolCounters.clear();
    holds.clear();
    guards.clear();
    routeWeights.clear();
  }

  /** The store's time in milliseconds (rounded down); any thread. */
  long now() {
    checkOpen();
    return originMillis + Math.floorDiv(nanoClock.getAsLong() - originNanos, 1_000_000L);
  }

  /** The store's time in microseconds; any thread. */
  long nowMicros() {
    return originMillis * 1000 + Math.floorDiv(nanoClock.getAsLong() - originNanos, 1000L);
  }

  /** The monotonic time in nanoseconds. */
  long nanos() {
    return nanoClock.getAsLong();
  }

  /**
   * The expiry instant in store milliseconds, rounded up, on the same scale as {@link #now()} (which rounds down):
   * {@code liveAt(timeMillis())} is then false only once the lease really expired, so a caller that saw a lease
   * expired never sees the store still honour it (a renewal or a claim check) a moment later.
   */
  long leaseUntilMillis(long untilNanos) {
    return originMillis - Math.floorDiv(originNanos - untilNanos, 1_000_000L);
  }

  void announce(Topic topic, String message) {
    listeners.dispatch(topic.channel(), message);
  }

  /**
   * What {@code op} returns, run under {@link #lock} on an open store: how every role does its whole operation
   * atomically; any thread.
   *
   * @throws IllegalStateException once the store is closed
   */
  <T> T locked(Supplier<T> op) {
    synchronized (lock) {
      checkOpen();
      return op.get();
    }
  }

  /** Runs {@code op} as {@link #locked(Supplier)} does; any thread. */
  void lockedRun(Runnable op) {
    locked(() -> {
      op.run();
      return null;
    });
  }

  /** A copy of the list at {@code key} (empty if there is none). */
  List<String> listCopy(String key) {
    List<String> list = listOrNull(key);
    return list == null ? List.of() : List.copyOf(list);
  }

  /** A copy of the hash at {@code key} (empty if there is none). */
  Map<String, String> hashCopy(String key) {
    Map<String, String> hash = hashOrNull(key);
    return hash == null ? Map.of() : Map.copyOf(hash);
  }

  /** The field of the hash at {@code key}, or null. */
  String hashField(String key, String field) {
    Map<String, String> hash = hashOrNull(key);
    return hash == null ? null : hash.get(field);
  }

  /** @throws IllegalStateException once the store is closed; any thread. */
  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("MemoryStore is closed");
    }
  }

  long nextCounter(String pool) {
    long next = nextToken(poolCounters.get(pool));
    poolCounters.put(pool, next);
    return next;
  }

  /** Larger than {@code last} and never below the store time in microseconds: tokens grow across lost state. */
  long nextToken(Long last) {
    long floor = now() * 1000L + 1;
    return last == null ? floor : Math.max(last + 1, floor);
  }

  /**
   * The pool's lost-state guard: stamps it when this incarnation has not seen the pool yet (a restart may have lost
   * leases that members still trust) and returns until when claims wait. A pool never seen, on a store that has kept
   * its state for at least the guard, needs no wait.
   */
  long guardNotBefore(String pool) {
    long now = nanoClock.getAsLong();
    Guard g = guards.get(pool);
    boolean counterKnown = poolCounters.containsKey(pool);
    if (g != null && g.incarnation() == incarnation && counterKnown) {
      return g.notBeforeNanos();
    }
    long guardNanos = safety.lostStateGuard().toNanos();
    boolean keptLongEnough = incarnation == 0 || now - crashedAtNanos >= guardNanos;
    long notBefore = g == null && !counterKnown && keptLongEnough ? now : now + guardNanos;
    guards.put(pool, new Guard(incarnation, notBefore));
    return notBefore;
  }

  /** True once {@code r}'s lease has been over for at least the clock margin. */
  boolean expiredWithMargin(Reg r) {
    return nanoClock.getAsLong() - r.untilNanos() >= safety.clockMargin().toNanos();
  }

  /** The registration of {@code id} in {@code pool} if it is of {@code session} and live; else null. */
  Reg currentReg(String pool, String id, long session) {
    Reg r = registrations.getOrDefault(pool, Map.of()).get(id);
    if (r == null || r.session() != session || nanoClock.getAsLong() - r.untilNanos() >= 0) {
      return null;
    }
    return r;
  }

  static void checkId(String id) {
    Objects.requireNonNull(id, "id");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("member id is empty");
    }
  }

  @SuppressWarnings("unchecked")
  List<String> listOrNull(String key) {
    Object v = data.get(key);
    if (v == null || v instanceof ArrayList) {
      return (List<String>) v;
    }
    throw wrongType(key, "list");
  }

  @SuppressWarnings("unchecked")
  Map<String, String> hashOrNull(String key) {
    Object v = data.get(key);
    if (v == null || v instanceof LinkedHashMap) {
      return (Map<String, String>) v;
    }
    throw wrongType(key, "hash");
  }

  private static IllegalStateException wrongType(String key, String wanted) {
    return new IllegalStateException("WRONGTYPE: key '" + key + "' does not hold a " + wanted);
  }

  /** The live lease {@code name}, or null (an expired one is removed). */
  Held liveLease(String name) {
    Held held = leases.get(name);
    if (held != null && nanoClock.getAsLong() - held.expiresAtNanos() >= 0) {
      leases.remove(name);
      return null;
    }
    return held;
  }

  boolean isCurrent(Lease lease) {
    Held held = liveLease(lease.name());
    return held != null && held.token() == lease.token() && held.holder().equals(lease.holder());
  }

  static long ttlNanos(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1 ms but was " + ttl);
    }
    return ttl.toNanos();
  }
}
