package io.allot.store.memory;

import io.allot.store.FencedException;
import io.allot.store.Leadership;
import io.allot.store.Lease;
import io.allot.store.MemberConflictException;
import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Membership;
import io.allot.store.Notifications;
import io.allot.store.Ownership;
import io.allot.store.Safety;
import io.allot.store.SeedKeys;
import io.allot.store.Store;
import io.allot.store.StoreClock;
import io.allot.store.Subscription;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.store.UnitHold;
import io.allot.store.UnitOwner;
import io.allot.store.spi.ChannelListeners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The embedded store: everything in this JVM's memory, with the same semantics as the Redis and PostgreSQL stores
 * ({@code memory:}). Used by {@code allot dev} and by unit tests.
 *
 * <p>Thread-safe: every field below {@code lock} is guarded by it, and every operation is short. Time is a monotonic
 * nanosecond clock ({@link System#nanoTime()} unless one is injected), so leases expire by this store's clock only;
 * {@link StoreClock#timeMillis()} is the wall time at construction advanced by that clock. Notifications are
 * delivered in order on one daemon thread.
 *
 * <p>It cannot lose state on its own; {@link #crash(boolean)} simulates a restart (with or without its data) for
 * tests and the simulator, and the lost-state guard then applies as on the other stores: each pool's claims wait
 * {@link Safety#lostStateGuard()} from the first call after the restart. A store that was never crashed has kept its
 * state "forever", so new pools need no wait.
 */
public final class MemoryStore implements Store {

  private final LongSupplier nanoClock;
  private final long originNanos;
  private final long originMillis;

  private final Object lock = new Object();
  // ---- guarded by lock
  /** The seed keys: values are {@code ArrayList<String>} (list) or {@code LinkedHashMap} (hash). */
  private final Map<String, Object> data = new HashMap<>();
  private final Map<String, Long> epochs = new HashMap<>();
  /** (tableKey, pool) -> the fields the pool wrote last time. */
  private final Map<PoolKey, Set<String>> poolFields = new HashMap<>();
  /** tableKey -> field -> pool that wrote it last. */
  private final Map<String, Map<String, String>> fieldOwners = new HashMap<>();
  private final Map<String, Held> leases = new HashMap<>();
  private final Map<String, Long> leaseTokens = new HashMap<>();
  private final Map<String, Map<String, Reg>> registrations = new HashMap<>();
  private final Map<String, Map<String, Own>> ownership = new HashMap<>();
  private final Map<String, Long> poolCounters = new HashMap<>();
  private final Map<String, Map<String, UnitHold>> holds = new HashMap<>();
  /** Pool -> its lost-state guard: the incarnation that stamped it and until when claims wait. */
  private final Map<String, Guard> guards = new HashMap<>();
  /** Changes with every {@link #crash}; 0 = never crashed. */
  private long incarnation;
  /** Nano time of the last crash (meaningful when incarnation > 0). */
  private long crashedAtNanos;
  private boolean closed;
  // ---- end of guarded by lock

  private final ChannelListeners listeners = new ChannelListeners("allot-memory-store-notify", ChannelListeners.NO_HOOKS);

  private final StoreClock clock = this::now;
  private final Leadership leadership = new MemLeadership();
  private final Tables tables = new MemTables();
  private final Notifications notifications = new MemNotifications();
  private final SeedKeys seedKeys = new MemSeedKeys();

  private record PoolKey(String tableKey, String pool) {}

  private record Held(String holder, long token, long expiresAtNanos) {}

  private record Reg(MemberMeta meta, long session, long untilNanos) {}

  private record Own(String member, long session, long token) {}

  private record Guard(long incarnation, long notBeforeNanos) {}

  private final Safety safety;
  /** Thread-safe on its own lock (its clock reads this store's clock). */
  private final MemoryJobQueues taskQueues;
  /** Thread-safe on its own lock; announces through this store's listeners. */
  private final MemoryTaskSpecs taskSpecs;

  /** A store on {@link System#nanoTime()} with the default safety settings. */
  public MemoryStore() {
    this(System::nanoTime);
  }

  /**
   * A store on an injected monotonic nanosecond clock (for tests: e.g. an {@code AtomicLong::get} advanced by hand;
   * moving it forward by more than expected is a store clock step), default safety settings.
   */
  public MemoryStore(LongSupplier nanoClock) {
    this(nanoClock, Safety.defaults(false));
  }

  /** A store on an injected clock with the given guard and clock margin (its findings are ignored). */
  public MemoryStore(LongSupplier nanoClock, Safety safety) {
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.originNanos = nanoClock.getAsLong();
    this.originMillis = System.currentTimeMillis();
    Objects.requireNonNull(safety, "safety");
    this.taskQueues = new MemoryJobQueues(
        () -> originMillis * 1000 + Math.floorDiv(nanoClock.getAsLong() - originNanos, 1000L), safety.clockMargin());
    this.taskSpecs = new MemoryTaskSpecs(this::now,
        (pool, name) -> listeners.dispatch(io.allot.store.Topic.taskSpecs(pool).channel(), name));
    this.safety = new Safety(safety.lostStateGuard(), safety.clockMargin(), false,
        java.util.List.of("memory: in this process only; everything is lost when it exits"));
  }

  /**
   * Simulates a restart of the store: a new incarnation, and, unless {@code keepData}, every record gone (lists,
   * tables, leases, members, owners, counters, holds, guards), as a Redis without persistence would come back. For
   * tests and the simulator. Subscriptions survive (a reconnecting client re-subscribes).
   */
  public void crash(boolean keepData) {
    synchronized (lock) {
      checkOpen();
      incarnation++;
      crashedAtNanos = nanoClock.getAsLong();
      if (!keepData) {
        taskQueues.clear();
        taskSpecs.clear();
        data.clear();
        epochs.clear();
        poolFields.clear();
        fieldOwners.clear();
        leases.clear();
        leaseTokens.clear();
        registrations.clear();
        ownership.clear();
        poolCounters.clear();
        holds.clear();
        guards.clear();
      }
    }
  }

  @Override
  public Safety safety() {
    return safety;
  }

  @Override
  public String describe() {
    return "memory:";
  }

  @Override
  public StoreClock clock() {
    return clock;
  }

  @Override
  public Leadership leadership() {
    return leadership;
  }

  @Override
  public Membership membership(String pool) {
    return new MemMembership(Store.checkPool(pool));
  }

  @Override
  public Ownership ownership(String pool) {
    return new MemOwnership(Store.checkPool(pool));
  }

  @Override
  public Tables tables() {
    return tables;
  }

  @Override
  public Notifications notifications() {
    return notifications;
  }

  @Override
  public io.allot.store.jobs.JobQueue jobQueue(String name) {
    checkOpen();
    return taskQueues.queue(name);
  }

  @Override
  public io.allot.store.tasks.TaskSpecs taskSpecs(String pool) {
    checkOpen();
    return taskSpecs.pool(pool);
  }

  @Override
  public SeedKeys seedKeys() {
    return seedKeys;
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    listeners.close();
  }

  @Override
  public String toString() {
    return "MemoryStore";
  }

  private long now() {
    checkOpen();
    return originMillis + Math.floorDiv(nanoClock.getAsLong() - originNanos, 1_000_000L);
  }

  // =====================================================================================================
  // seed keys

  private final class MemSeedKeys implements SeedKeys {
    @Override
    public List<String> list(String key) {
      Objects.requireNonNull(key, "key");
      synchronized (lock) {
        checkOpen();
        List<String> list = listOrNull(key);
        return list == null ? List.of() : List.copyOf(list);
      }
    }

    @Override
    public boolean addToList(String key, String value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      synchronized (lock) {
        checkOpen();
        List<String> list = listOrNull(key);
        if (list != null && list.contains(value)) {
          return false;
        }
        if (list == null) {
          list = new ArrayList<>();
          data.put(key, list);
        }
        list.add(0, value);
        announce(Topic.key(key), "lpush");
        return true;
      }
    }

    @Override
    public boolean removeFromList(String key, String value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      synchronized (lock) {
        checkOpen();
        List<String> list = listOrNull(key);
        if (list == null) {
          return false;
        }
        boolean removed = list.removeIf(value::equals);
        if (list.isEmpty()) {
          data.remove(key);
        }
        if (removed) {
          announce(Topic.key(key), "lrem");
        }
        return removed;
      }
    }

    @Override
    public void replaceList(String key, List<String> values) {
      Objects.requireNonNull(key, "key");
      List<String> copy = new ArrayList<>(values.size());
      for (String v : values) {
        copy.add(Objects.requireNonNull(v, "list values must not be null"));
      }
      synchronized (lock) {
        checkOpen();
        if (copy.isEmpty()) {
          data.remove(key);
        } else {
          data.put(key, copy);
        }
        announce(Topic.key(key), "replace");
      }
    }

    @Override
    public Map<String, String> hash(String key) {
      Objects.requireNonNull(key, "key");
      synchronized (lock) {
        checkOpen();
        Map<String, String> hash = hashOrNull(key);
        return hash == null ? Map.of() : Map.copyOf(hash);
      }
    }

    @Override
    public String hashField(String key, String field) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(field, "field");
      synchronized (lock) {
        checkOpen();
        Map<String, String> h = hashOrNull(key);
        return h == null ? null : h.get(field);
      }
    }
  }

  // =====================================================================================================
  // leadership

  private final class MemLeadership implements Leadership {
    @Override
    public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(holder, "holder");
      long ttlNanos = ttlNanos(ttl);
      synchronized (lock) {
        checkOpen();
        if (liveLease(name) != null) {
          return Optional.empty();
        }
        long token = nextToken(leaseTokens.get(name));
        leaseTokens.put(name, token);
        leases.put(name, new Held(holder, token, nanoClock.getAsLong() + ttlNanos));
        return Optional.of(new Lease(name, holder, token));
      }
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      Objects.requireNonNull(lease, "lease");
      long ttlNanos = ttlNanos(ttl);
      synchronized (lock) {
        checkOpen();
        if (!isCurrent(lease)) {
          return false;
        }
        leases.put(lease.name(), new Held(lease.holder(), lease.token(), nanoClock.getAsLong() + ttlNanos));
        return true;
      }
    }

    @Override
    public void release(Lease lease) {
      Objects.requireNonNull(lease, "lease");
      synchronized (lock) {
        checkOpen();
        if (isCurrent(lease)) {
          leases.remove(lease.name());
        }
      }
    }

    @Override
    public Optional<Lease> current(String name) {
      Objects.requireNonNull(name, "name");
      synchronized (lock) {
        checkOpen();
        Held held = liveLease(name);
        return held == null ? Optional.empty() : Optional.of(new Lease(name, held.holder(), held.token()));
      }
    }
  }

  // =====================================================================================================
  // tables

  private final class MemTables implements Tables {
    @Override
    public long publish(Lease lease, String tableKey, String pool, Map<String, String> fields) {
      Objects.requireNonNull(lease, "lease");
      String expectedName = Tables.leaseName(tableKey, pool);
      if (!lease.name().equals(expectedName)) {
        throw new IllegalArgumentException("publishing pool '" + pool + "' into '" + tableKey
            + "' needs the lease named '" + expectedName + "', not '" + lease.name() + "'");
      }
      Map<String, String> copy = new LinkedHashMap<>();
      fields.forEach((f, v) -> copy.put(Objects.requireNonNull(f, "field"), Objects.requireNonNull(v, "value")));
      synchronized (lock) {
        checkOpen();
        if (!isCurrent(lease)) {
          throw new FencedException(lease, leadership.current(lease.name()));
        }
        Map<String, String> hash = hashOrNull(tableKey);
        if (hash == null) {
          hash = new LinkedHashMap<>();
        }
        Map<String, String> owner = fieldOwners.computeIfAbsent(tableKey, k -> new HashMap<>());
        PoolKey gk = new PoolKey(tableKey, pool);
        for (String f : poolFields.getOrDefault(gk, Set.of())) {
          if (!copy.containsKey(f) && pool.equals(owner.get(f))) {
            hash.remove(f);
            owner.remove(f);
          }
        }
        hash.putAll(copy);
        copy.keySet().forEach(f -> owner.put(f, pool));
        if (copy.isEmpty()) {
          poolFields.remove(gk);
        } else {
          poolFields.put(gk, new LinkedHashSet<>(copy.keySet()));
        }
        if (owner.isEmpty()) {
          fieldOwners.remove(tableKey);
        }
        if (hash.isEmpty()) {
          data.remove(tableKey);
        } else {
          data.put(tableKey, hash);
        }
        long epoch = epochs.merge(tableKey, 1L, Long::sum);
        announce(Topic.table(tableKey), Long.toString(epoch)); // under the lock: announced in epoch order
        return epoch;
      }
    }

    @Override
    public long epoch(String tableKey) {
      Objects.requireNonNull(tableKey, "tableKey");
      synchronized (lock) {
        checkOpen();
        return epochs.getOrDefault(tableKey, 0L);
      }
    }

    @Override
    public Map<String, String> read(String tableKey) {
      return seedKeys.hash(tableKey);
    }

    @Override
    public Optional<String> read(String tableKey, String member) {
      return Optional.ofNullable(seedKeys.hashField(tableKey, member));
    }
  }

  // =====================================================================================================
  // membership

  private final class MemMembership implements Membership {
    private final String pool;

    MemMembership(String pool) {
      this.pool = pool;
    }

    @Override
    public String pool() {
      return pool;
    }

    @Override
    public long register(String id, MemberMeta meta, Duration ttl) {
      checkId(id);
      Objects.requireNonNull(meta, "meta");
      long ttlNanos = ttlNanos(ttl);
      synchronized (lock) {
        checkOpen();
        List<String> list = listOrNull(pool); // WRONGTYPE before any change
        Reg old = registrations.getOrDefault(pool, Map.of()).get(id);
        if (old != null && !expiredWithMargin(old)) {
          throw new MemberConflictException(pool, id,
              leaseUntilMillis(old.untilNanos()) + safety.clockMargin().toMillis());
        }
        guardNotBefore(pool);
        long session = nextCounter(pool);
        registrations.computeIfAbsent(pool, p -> new HashMap<>())
            .put(id, new Reg(meta, session, nanoClock.getAsLong() + ttlNanos));
        if (list == null) {
          list = new ArrayList<>();
          data.put(pool, list);
        }
        if (!list.contains(id)) {
          list.add(0, id);
        }
        announce(Topic.members(pool), id);
        return session;
      }
    }

    @Override
    public boolean renew(String id, long session, Duration ttl) {
      checkId(id);
      long ttlNanos = ttlNanos(ttl);
      synchronized (lock) {
        checkOpen();
        Reg r = currentReg(pool, id, session);
        if (r == null) {
          return false;
        }
        registrations.get(pool).put(id, new Reg(r.meta(), session, nanoClock.getAsLong() + ttlNanos));
        return true;
      }
    }

    @Override
    public boolean update(String id, long session, MemberMeta meta) {
      checkId(id);
      Objects.requireNonNull(meta, "meta");
      synchronized (lock) {
        checkOpen();
        Reg r = currentReg(pool, id, session);
        if (r == null) {
          return false;
        }
        registrations.get(pool).put(id, new Reg(meta, session, r.untilNanos()));
        announce(Topic.members(pool), id);
        return true;
      }
    }

    @Override
    public void deregister(String id, long session) {
      checkId(id);
      synchronized (lock) {
        checkOpen();
        List<String> list = listOrNull(pool); // WRONGTYPE before any change
        Map<String, Reg> regs = registrations.get(pool);
        Reg r = regs == null ? null : regs.get(id);
        if (r == null || r.session() != session) {
          return;
        }
        regs.remove(id);
        if (list != null) {
          list.removeIf(id::equals);
          if (list.isEmpty()) {
            data.remove(pool);
          }
        }
        announce(Topic.members(pool), id);
      }
    }

    @Override
    public boolean removeIfExpired(String id, long session) {
      checkId(id);
      synchronized (lock) {
        checkOpen();
        Map<String, Reg> regs = registrations.get(pool);
        Reg r = regs == null ? null : regs.get(id);
        if (r == null || r.session() != session || !expiredWithMargin(r)) {
          return false;
        }
        deregister(id, session);
        return true;
      }
    }

    @Override
    public Map<String, MemberRecord> members() {
      synchronized (lock) {
        checkOpen();
        Map<String, MemberRecord> out = new LinkedHashMap<>();
        registrations.getOrDefault(pool, Map.of()).forEach((id, r) ->
            out.put(id, new MemberRecord(id, r.meta(), r.session(), leaseUntilMillis(r.untilNanos()))));
        return out;
      }
    }
  }

  /**
   * The expiry instant in store milliseconds, rounded up, on the same scale as {@link StoreClock#timeMillis()} (which
   * rounds down): {@code liveAt(timeMillis())} is then false only once the lease really expired, so a caller that saw
   * a lease expired never sees the store still honour it (a renewal or a claim check) a moment later.
   */
  private long leaseUntilMillis(long untilNanos) {
    return originMillis - Math.floorDiv(originNanos - untilNanos, 1_000_000L);
  }

  // =====================================================================================================
  // ownership

  private final class MemOwnership implements Ownership {
    private final String pool;

    MemOwnership(String pool) {
      this.pool = pool;
    }

    @Override
    public String pool() {
      return pool;
    }

    @Override
    public OptionalLong claim(String unit, String member, long session) {
      checkId(member);
      Objects.requireNonNull(unit, "unit");
      synchronized (lock) {
        checkOpen();
        return claimLocked(unit, member, session);
      }
    }

    @Override
    public Map<String, Long> claimAll(List<String> units, String member, long session) {
      checkId(member);
      units.forEach(u -> Objects.requireNonNull(u, "unit"));
      Map<String, Long> out = new LinkedHashMap<>();
      synchronized (lock) {
        checkOpen();
        for (String unit : units) {
          OptionalLong token = claimLocked(unit, member, session);
          if (token.isPresent()) {
            out.put(unit, token.getAsLong());
          }
        }
      }
      return out;
    }

    private OptionalLong claimLocked(String unit, String member, long session) {
      if (currentReg(pool, member, session) == null) {
        return OptionalLong.empty();
      }
      Map<String, Own> owns = ownership.computeIfAbsent(pool, p -> new HashMap<>());
      Own o = owns.get(unit);
      if (o != null && o.member().equals(member) && o.session() == session) {
        return OptionalLong.of(o.token());
      }
      if (nanoClock.getAsLong() - guardNotBefore(pool) < 0) {
        return OptionalLong.empty(); // waiting out the lost-state guard
      }
      if (o != null) {
        Reg owner = registrations.getOrDefault(pool, Map.of()).get(o.member());
        if (owner != null && owner.session() == o.session() && !expiredWithMargin(owner)) {
          return OptionalLong.empty(); // owned by a live session, or one expired less than the clock margin ago
        }
      }
      long token = nextCounter(pool);
      owns.put(unit, new Own(member, session, token));
      return OptionalLong.of(token);
    }

    @Override
    public boolean release(String unit, String member, long token) {
      checkId(member);
      Objects.requireNonNull(unit, "unit");
      synchronized (lock) {
        checkOpen();
        Map<String, Own> owns = ownership.get(pool);
        Own o = owns == null ? null : owns.get(unit);
        if (o == null || !o.member().equals(member) || o.token() != token) {
          return false;
        }
        owns.remove(unit);
        announce(Topic.releases(pool), unit);
        return true;
      }
    }

    @Override
    public Set<String> releaseAll(Map<String, Long> tokens, String member) {
      checkId(member);
      synchronized (lock) {
        Set<String> out = new LinkedHashSet<>();
        tokens.forEach((unit, token) -> {
          if (release(unit, member, Objects.requireNonNull(token, "token"))) {
            out.add(unit);
          }
        });
        return out;
      }
    }

    @Override
    public boolean release(String unit, String member, long token, Duration hold) {
      Objects.requireNonNull(hold, "hold");
      if (hold.isNegative()) {
        throw new IllegalArgumentException("hold must be >= 0 but was " + hold);
      }
      synchronized (lock) {
        boolean released = release(unit, member, token);
        if (released && !hold.isZero()) {
          holds.computeIfAbsent(pool, p -> new HashMap<>())
              .put(unit, new UnitHold(unit, member, now() + hold.toMillis()));
        }
        return released;
      }
    }

    @Override
    public Map<String, UnitHold> holds() {
      synchronized (lock) {
        checkOpen();
        long now = now();
        Map<String, UnitHold> live = holds.getOrDefault(pool, new HashMap<>());
        live.values().removeIf(h -> h.untilMillis() <= now);
        return Map.copyOf(live);
      }
    }

    @Override
    public Map<String, UnitOwner> ownersOf(Collection<String> units) {
      synchronized (lock) {
        checkOpen();
        Map<String, Own> owns = ownership.getOrDefault(pool, Map.of());
        Map<String, UnitOwner> out = new LinkedHashMap<>();
        for (String u : units) {
          Own o = owns.get(Objects.requireNonNull(u, "unit"));
          if (o != null) {
            out.put(u, new UnitOwner(u, o.member(), o.session(), o.token()));
          }
        }
        return out;
      }
    }

    @Override
    public Map<String, UnitOwner> owners() {
      synchronized (lock) {
        checkOpen();
        Map<String, UnitOwner> out = new LinkedHashMap<>();
        ownership.getOrDefault(pool, Map.of())
            .forEach((u, o) -> out.put(u, new UnitOwner(u, o.member(), o.session(), o.token())));
        return out;
      }
    }

    @Override
    public boolean validToken(String unit, String member, long session, long token) {
      Objects.requireNonNull(unit, "unit");
      Objects.requireNonNull(member, "member");
      synchronized (lock) {
        checkOpen();
        Own o = ownership.getOrDefault(pool, Map.of()).get(unit);
        return o != null && o.token() == token && o.member().equals(member) && o.session() == session
            && currentReg(pool, member, session) != null;
      }
    }
  }

  // =====================================================================================================
  // notifications

  private final class MemNotifications implements Notifications {
    @Override
    public Subscription subscribe(Topic topic, Consumer<String> listener) {
      Objects.requireNonNull(topic, "topic");
      checkOpen();
      return listeners.add(topic.channel(), listener);
    }

    @Override
    public void publish(Topic topic, String message) {
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(message, "message");
      synchronized (lock) {
        checkOpen();
        announce(topic, message);
      }
    }
  }

  // =====================================================================================================
  // internals (callers hold the lock)

  private void announce(Topic topic, String message) {
    listeners.dispatch(topic.channel(), message);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("MemoryStore is closed");
    }
  }

  private long nextCounter(String pool) {
    long next = nextToken(poolCounters.get(pool));
    poolCounters.put(pool, next);
    return next;
  }

  /** Larger than {@code last} and never below the store time in microseconds: tokens grow across lost state. */
  private long nextToken(Long last) {
    long floor = now() * 1000L + 1;
    return last == null ? floor : Math.max(last + 1, floor);
  }

  /**
   * The pool's lost-state guard: stamps it when this incarnation has not seen the pool yet (a restart may have lost
   * leases that members still trust) and returns until when claims wait. A pool never seen, on a store that has kept
   * its state for at least the guard, needs no wait.
   */
  private long guardNotBefore(String pool) {
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
  private boolean expiredWithMargin(Reg r) {
    return nanoClock.getAsLong() - r.untilNanos() >= safety.clockMargin().toNanos();
  }

  private Reg currentReg(String pool, String id, long session) {
    Reg r = registrations.getOrDefault(pool, Map.of()).get(id);
    if (r == null || r.session() != session || nanoClock.getAsLong() - r.untilNanos() >= 0) {
      return null;
    }
    return r;
  }

  private static void checkId(String id) {
    Objects.requireNonNull(id, "id");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("member id is empty");
    }
  }

  @SuppressWarnings("unchecked")
  private List<String> listOrNull(String key) {
    Object v = data.get(key);
    if (v == null || v instanceof ArrayList) {
      return (List<String>) v;
    }
    throw wrongType(key, "list");
  }

  @SuppressWarnings("unchecked")
  private Map<String, String> hashOrNull(String key) {
    Object v = data.get(key);
    if (v == null || v instanceof LinkedHashMap) {
      return (Map<String, String>) v;
    }
    throw wrongType(key, "hash");
  }

  private static IllegalStateException wrongType(String key, String wanted) {
    return new IllegalStateException("WRONGTYPE: key '" + key + "' does not hold a " + wanted);
  }

  private Held liveLease(String name) {
    Held held = leases.get(name);
    if (held != null && nanoClock.getAsLong() - held.expiresAtNanos() >= 0) {
      leases.remove(name);
      return null;
    }
    return held;
  }

  private boolean isCurrent(Lease lease) {
    Held held = liveLease(lease.name());
    return held != null && held.token() == lease.token() && held.holder().equals(lease.holder());
  }

  private static long ttlNanos(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1 ms but was " + ttl);
    }
    return ttl.toNanos();
  }
}
