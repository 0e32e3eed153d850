package io.allot.store.memory;

import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.MemberRecord;
import io.allot.store.Ownership;
import io.allot.store.Store;
import io.allot.store.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded store: everything in this JVM's memory, same semantics as the Redis store. Used by {@code allot dev}
 * and by unit tests.
 *
 * <p>Thread-safe (one lock; every operation is short). Time is a monotonic nanosecond clock
 * ({@link System#nanoTime()} unless one is injected), so leases expire by this store's clock only;
 * {@link #timeMillis()} is the wall time at construction advanced by that clock. Notifications are delivered in
 * order on one daemon thread.
 */
public final class MemoryStore implements Store {
  private static final Logger log = LoggerFactory.getLogger(MemoryStore.class);

  private final LongSupplier nanoClock;
  private final long originNanos;
  private final long originMillis;

  private final Object lock = new Object();
  /** The keyspace of lists and hashes: values are {@code ArrayList<String>} (list) or {@code LinkedHashMap} (hash). */
  private final Map<String, Object> data = new HashMap<>();
  private final Map<String, Long> epochs = new HashMap<>();
  /** (hashKey, group) -> the fields the group wrote last time. */
  private final Map<GroupKey, Set<String>> groupFields = new HashMap<>();
  /** hashKey -> field -> group that wrote it last. */
  private final Map<String, Map<String, String>> owners = new HashMap<>();
  private final Map<String, Held> leases = new HashMap<>();
  private final Map<String, Long> tokens = new HashMap<>();

  private final Map<String, CopyOnWriteArrayList<Sub>> subscribers = new ConcurrentHashMap<>();
  private final ExecutorService notifier;
  private volatile boolean closed;

  private record GroupKey(String hashKey, String group) {}

  private record Held(String holder, long token, long expiresAtNanos) {}

  private static final class Sub implements Subscription {
    private final MemoryStore store;
    private final String channel;
    private final Consumer<String> listener;
    private volatile boolean active = true;

    Sub(MemoryStore store, String channel, Consumer<String> listener) {
      this.store = store;
      this.channel = channel;
      this.listener = listener;
    }

    @Override
    public void close() {
      active = false;
      store.subscribers.computeIfPresent(channel, (c, list) -> {
        list.remove(this);
        return list.isEmpty() ? null : list;
      });
    }
  }

  /** A store on {@link System#nanoTime()}. */
  public MemoryStore() {
    this(System::nanoTime);
  }

  /**
   * A store on an injected monotonic nanosecond clock (for tests: e.g. an {@code AtomicLong::get} advanced by hand).
   */
  public MemoryStore(LongSupplier nanoClock) {
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.originNanos = nanoClock.getAsLong();
    this.originMillis = System.currentTimeMillis();
    this.notifier = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "allot-memory-store-notify");
      t.setDaemon(true);
      return t;
    });
  }

  // ---- lists and hashes

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
      return removed;
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
    }
  }

  @Override
  public long timeMillis() {
    checkOpen();
    return originMillis + Math.floorDiv(nanoClock.getAsLong() - originNanos, 1_000_000L);
  }

  // ---- leases

  @Override
  public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
    long ttlNanos = ttlNanos(ttl);
    synchronized (lock) {
      checkOpen();
      if (live(name) != null) {
        return Optional.empty();
      }
      Long last = tokens.get(name);
      long token = last == null ? timeMillis() * 1000L + 1 : last + 1;
      tokens.put(name, token);
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
  public Optional<Lease> currentLeader(String name) {
    Objects.requireNonNull(name, "name");
    synchronized (lock) {
      checkOpen();
      Held held = live(name);
      return held == null ? Optional.empty() : Optional.of(new Lease(name, held.holder(), held.token()));
    }
  }

  // ---- fenced publication

  @Override
  public long publish(Lease lease, String hashKey, String group, Map<String, String> fields) {
    Objects.requireNonNull(lease, "lease");
    String expectedName = Store.tableLeaseName(hashKey, group);
    if (!lease.name().equals(expectedName)) {
      throw new IllegalArgumentException("publishing group '" + group + "' into '" + hashKey
          + "' needs the lease named '" + expectedName + "', not '" + lease.name() + "'");
    }
    Map<String, String> copy = new LinkedHashMap<>();
    fields.forEach((f, v) -> copy.put(Objects.requireNonNull(f, "field"), Objects.requireNonNull(v, "value")));
    synchronized (lock) {
      checkOpen();
      if (!isCurrent(lease)) {
        throw new FencedException(lease, currentLeader(lease.name()));
      }
      Map<String, String> hash = hashOrNull(hashKey);
      if (hash == null) {
        hash = new LinkedHashMap<>();
      }
      Map<String, String> owner = owners.computeIfAbsent(hashKey, k -> new HashMap<>());
      GroupKey gk = new GroupKey(hashKey, group);
      for (String f : groupFields.getOrDefault(gk, Set.of())) {
        if (!copy.containsKey(f) && group.equals(owner.get(f))) {
          hash.remove(f);
          owner.remove(f);
        }
      }
      hash.putAll(copy);
      copy.keySet().forEach(f -> owner.put(f, group));
      if (copy.isEmpty()) {
        groupFields.remove(gk);
      } else {
        groupFields.put(gk, new LinkedHashSet<>(copy.keySet()));
      }
      if (owner.isEmpty()) {
        owners.remove(hashKey);
      }
      if (hash.isEmpty()) {
        data.remove(hashKey);
      } else {
        data.put(hashKey, hash);
      }
      long epoch = epochs.merge(hashKey, 1L, Long::sum);
      // scheduled under the lock so notifications leave in epoch order
      deliver(Store.notifyChannel(hashKey), Long.toString(epoch));
      return epoch;
    }
  }

  @Override
  public long epoch(String hashKey) {
    Objects.requireNonNull(hashKey, "hashKey");
    synchronized (lock) {
      checkOpen();
      return epochs.getOrDefault(hashKey, 0L);
    }
  }

  // ---- membership and ownership

  private record Reg(int affinity, int capacity, long session, long untilNanos) {}

  private record Own(String member, long session, long token) {}

  private final Map<String, Map<String, Reg>> registrations = new HashMap<>();
  private final Map<String, Map<String, Own>> ownership = new HashMap<>();
  private final Map<String, Long> poolCounters = new HashMap<>();

  private long nextCounter(String pool) {
    Long last = poolCounters.get(pool);
    long next = last == null ? timeMillis() * 1000L + 1 : last + 1;
    poolCounters.put(pool, next);
    return next;
  }

  private Reg currentReg(String pool, String id, long session) {
    Reg r = registrations.getOrDefault(pool, Map.of()).get(id);
    if (r == null || r.session() != session || nanoClock.getAsLong() - r.untilNanos() >= 0) {
      return null;
    }
    return r;
  }

  private static void checkMemberArgs(String pool, String id) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(id, "id");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("member id is empty");
    }
  }

  @Override
  public long register(String pool, String id, int affinity, int capacity, Duration ttl) {
    checkMemberArgs(pool, id);
    if (affinity < 0 || capacity < 0) {
      throw new IllegalArgumentException("affinity and capacity must be >= 0 for member '" + id + "'");
    }
    long ttlNanos = ttlNanos(ttl);
    long session;
    synchronized (lock) {
      checkOpen();
      List<String> list = listOrNull(pool); // WRONGTYPE before any change
      session = nextCounter(pool);
      registrations.computeIfAbsent(pool, p -> new HashMap<>())
          .put(id, new Reg(affinity, capacity, session, nanoClock.getAsLong() + ttlNanos));
      if (list == null) {
        list = new ArrayList<>();
        data.put(pool, list);
      }
      if (!list.contains(id)) {
        list.add(0, id);
      }
      deliver(Store.membersChannel(pool), id);
    }
    return session;
  }

  @Override
  public boolean renewMember(String pool, String id, long session, Duration ttl) {
    checkMemberArgs(pool, id);
    long ttlNanos = ttlNanos(ttl);
    synchronized (lock) {
      checkOpen();
      Reg r = currentReg(pool, id, session);
      if (r == null) {
        return false;
      }
      registrations.get(pool).put(id, new Reg(r.affinity(), r.capacity(), session, nanoClock.getAsLong() + ttlNanos));
      return true;
    }
  }

  @Override
  public boolean updateMember(String pool, String id, long session, int affinity, int capacity) {
    checkMemberArgs(pool, id);
    if (affinity < 0 || capacity < 0) {
      throw new IllegalArgumentException("affinity and capacity must be >= 0 for member '" + id + "'");
    }
    synchronized (lock) {
      checkOpen();
      Reg r = currentReg(pool, id, session);
      if (r == null) {
        return false;
      }
      registrations.get(pool).put(id, new Reg(affinity, capacity, session, r.untilNanos()));
      deliver(Store.membersChannel(pool), id);
      return true;
    }
  }

  @Override
  public void deregister(String pool, String id, long session) {
    checkMemberArgs(pool, id);
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
      deliver(Store.membersChannel(pool), id);
    }
  }

  @Override
  public Map<String, MemberRecord> members(String pool) {
    Objects.requireNonNull(pool, "pool");
    synchronized (lock) {
      checkOpen();
      Map<String, MemberRecord> out = new LinkedHashMap<>();
      registrations.getOrDefault(pool, Map.of()).forEach((id, r) -> out.put(id,
          new MemberRecord(id, r.affinity(), r.capacity(), r.session(), leaseUntilMillis(r.untilNanos()))));
      return out;
    }
  }

  /**
   * The expiry instant in store milliseconds, rounded up, on the same scale as {@link #timeMillis()} (which rounds
   * down): {@code liveAt(timeMillis())} is then false only once the lease really expired, so a caller that saw a
   * lease expired never sees the store still honour it (a renewal or a claim check) a moment later.
   */
  private long leaseUntilMillis(long untilNanos) {
    return originMillis - Math.floorDiv(originNanos - untilNanos, 1_000_000L);
  }

  @Override
  public java.util.OptionalLong claim(String pool, String unit, String member, long session) {
    checkMemberArgs(pool, member);
    Objects.requireNonNull(unit, "unit");
    synchronized (lock) {
      checkOpen();
      if (currentReg(pool, member, session) == null) {
        return java.util.OptionalLong.empty();
      }
      Map<String, Own> owns = ownership.computeIfAbsent(pool, p -> new HashMap<>());
      Own o = owns.get(unit);
      if (o != null) {
        if (o.member().equals(member) && o.session() == session) {
          return java.util.OptionalLong.of(o.token());
        }
        if (currentReg(pool, o.member(), o.session()) != null) {
          return java.util.OptionalLong.empty(); // owned by a live session
        }
      }
      long token = nextCounter(pool);
      owns.put(unit, new Own(member, session, token));
      return java.util.OptionalLong.of(token);
    }
  }

  @Override
  public boolean releaseUnit(String pool, String unit, String member, long token) {
    checkMemberArgs(pool, member);
    Objects.requireNonNull(unit, "unit");
    synchronized (lock) {
      checkOpen();
      Map<String, Own> owns = ownership.get(pool);
      Own o = owns == null ? null : owns.get(unit);
      if (o == null || !o.member().equals(member) || o.token() != token) {
        return false;
      }
      owns.remove(unit);
      deliver(Store.ownersChannel(pool), unit);
      return true;
    }
  }

  @Override
  public Map<String, Ownership> owners(String pool) {
    Objects.requireNonNull(pool, "pool");
    synchronized (lock) {
      checkOpen();
      Map<String, Ownership> out = new LinkedHashMap<>();
      ownership.getOrDefault(pool, Map.of()).forEach((u, o) -> out.put(u, new Ownership(u, o.member(), o.session(), o.token())));
      return out;
    }
  }

  @Override
  public boolean validToken(String pool, String unit, long token) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(unit, "unit");
    synchronized (lock) {
      checkOpen();
      Own o = ownership.getOrDefault(pool, Map.of()).get(unit);
      return o != null && o.token() == token && currentReg(pool, o.member(), o.session()) != null;
    }
  }

  // ---- notification

  @Override
  public Subscription subscribe(String channel, Consumer<String> listener) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(listener, "listener");
    checkOpen();
    Sub sub = new Sub(this, channel, listener);
    subscribers.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(sub);
    return sub;
  }

  @Override
  public void notify(String channel, String message) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(message, "message");
    synchronized (lock) {
      checkOpen();
      deliver(channel, message);
    }
  }

  private void deliver(String channel, String message) {
    List<Sub> subs = subscribers.get(channel);
    if (subs == null) {
      return;
    }
    for (Sub sub : subs) {
      try {
        notifier.execute(() -> {
          if (!sub.active) {
            return;
          }
          try {
            sub.listener.accept(message);
          } catch (RuntimeException e) {
            log.warn("listener on channel '{}' failed on message '{}'", channel, message, e);
          }
        });
      } catch (RejectedExecutionException e) {
        return; // closing
      }
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    subscribers.values().forEach(list -> list.forEach(s -> s.active = false));
    subscribers.clear();
    notifier.shutdownNow();
    try {
      notifier.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- internals (callers hold the lock)

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("MemoryStore is closed");
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

  private IllegalStateException wrongType(String key, String wanted) {
    return new IllegalStateException("WRONGTYPE: key '" + key + "' does not hold a " + wanted);
  }

  private Held live(String name) {
    Held held = leases.get(name);
    if (held != null && nanoClock.getAsLong() - held.expiresAtNanos() >= 0) {
      leases.remove(name);
      return null;
    }
    return held;
  }

  private boolean isCurrent(Lease lease) {
    Held held = live(lease.name());
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
