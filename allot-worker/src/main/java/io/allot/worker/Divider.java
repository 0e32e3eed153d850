package io.allot.worker;

import io.allot.core.assign.SeedLayout;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of one pool: registers itself with a lease, answers the distributor's pings, and runs exactly the units
 * it owns, reading its share from the distribution hash.
 *
 * <pre>{@code
 * Divider d = Divider.builder(store)
 *     .pool("sys-robots-list").distribution("sys-matching-table")
 *     .port(7001)
 *     .listener(new UnitListener() {
 *       public void onStart(UnitStart s) { ...start s.unit() with fencing token s.token()... }
 *       public void onStop(UnitStop s)   { ...stop s.unit(), then d.confirmStop(s.unit()) unless LEASE_LOST... }
 *     })
 *     .build();
 * d.start();
 * ...
 * d.flushAndCancel(Duration.ofSeconds(30));
 * }</pre>
 *
 * <h2>Protocol</h2>
 * Level-triggered reconciliation on one loop thread, every {@code syncInterval}, on a table change
 * ({@link Store#notifyChannel}), when a unit it waits for is released ({@link Store#ownersChannel}) and on the
 * application's calls:
 * <ol>
 *   <li><b>Lease.</b> {@link Store#register} at start gives a session, renewed every {@code renewEvery} on its own
 *   thread. The lease is valid until at least {@code lastSuccessfulRenewSent + leaseTtl} (store time cannot run out
 *   before a request was sent). When {@code leaseTtl - fenceMargin} has passed since then without a successful
 *   renewal, or the store refuses one, the member <em>fences itself</em>: a {@link StopReason#LEASE_LOST} stop for
 *   every unit, which it then forgets (without releasing: the store may be unreachable; they expire with the lease);
 *   health turns NOT_SERVING; it registers again (a new session) once the old lease has surely run out, then
 *   resumes.</li>
 *   <li><b>Target</b> {@code T = SeedLayout.split(store.hashField(distribution, memberId))}; owned {@code O}.</li>
 *   <li>Each unit of {@code O} not in {@code T}: a {@link StopReason#REASSIGNED} stop; after
 *   {@link #confirmStop(String)}, {@link Store#releaseUnit} (the next owner is notified). At most
 *   {@code maxConcurrentMoves} such stops are unconfirmed at a time.</li>
 *   <li>Each unit of {@code T} not in {@code O} (not on release hold, within {@code capacity}, at most
 *   {@code maxConcurrentMoves} per round, none while flushing): {@link Store#claim}; on a token, a
 *   {@link UnitStart}. A refused claim (the previous owner is still stopping, or its lease has not expired) is
 *   retried when the store announces the unit's release, or after {@code syncInterval}.</li>
 *   <li>Pings ({@code grpc.health.v1} and the legacy {@code proto.GRPCPinger/Ping}) are answered from
 *   {@link #start()} until {@link #cancel()}; SERVING only while registered.</li>
 * </ol>
 * The store never lets two live sessions own a unit, and a member stops a unit before its lease can expire in store
 * time, so no unit runs on two members at once — provided the application stops a unit when told to (at once for
 * {@code LEASE_LOST}: it has {@code fenceMargin} before another member may claim it) and listener callbacks return
 * quickly.
 *
 * <p>All methods are thread-safe. Nothing throws a checked exception; store failures are retried, not thrown.
 */
public final class Divider implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Divider.class);

  /** Default distribution hash, as the distributor's {@code -distribution-namespace}. */
  public static final String DEFAULT_DISTRIBUTION = "sys-matching-table";

  // ---- settings
  private final Store store;
  private final String pool;
  private final String distribution;
  private final String host;
  private final String bindAddress;
  private final int requestedPort;
  private final int capacity;
  private final int maxMoves;
  private final Duration leaseTtl;
  private final long ttlNanos;
  private final long renewNanos;
  private final long marginNanos;
  private final long syncNanos;
  private final long holdNanos;
  private final long graceNanos;
  private final List<UnitListener> listeners = new CopyOnWriteArrayList<>();

  // ---- lifecycle
  private enum Phase { NEW, RUNNING, CANCELLING, CANCELLED }

  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);
  private final CountDownLatch terminated = new CountDownLatch(1);
  private volatile String memberId;
  private PingServer ping;
  private ExecutorService events;
  private volatile Thread eventThread;
  private ScheduledExecutorService renewer;
  private ScheduledExecutorService watchdog;
  private Thread loopThread;
  private volatile List<Subscription> subscriptions;
  private final ArrayBlockingQueue<Boolean> wakeups = new ArrayBlockingQueue<>(1);

  // ---- affinity: the value, a version bumped after every change, and the version last written to the store
  private final AtomicInteger affinity;
  private final AtomicLong affinityVersion = new AtomicLong();
  private final AtomicLong publishedAffinityVersion = new AtomicLong(-1);

  // ---- lease and ownership (guarded by lock; never held across a store call)
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private boolean registered;
  private long session;
  private long lastSession;
  private volatile long generation;
  private long lastRenewSentNanos;
  private long lastRenewAckNanos;
  private long reRegisterNotBeforeNanos;
  private boolean draining;
  private volatile boolean leaseHeld;
  private volatile long fenceAtNanos;
  private volatile long lastFencedAtMillis;
  private final Map<String, Owned> owned = new LinkedHashMap<>();
  private final Map<String, Long> holdUntil = new HashMap<>();
  /** unit -> when its claim was refused; retried by the next timed round or when its release is announced. */
  private final Map<String, Long> refusedAt = new ConcurrentHashMap<>();
  /** Units of T not owned: a release announced for one of them wakes the loop. */
  private volatile Set<String> wanted = Set.of();

  // ---- counters
  private final AtomicLong registrations = new AtomicLong();
  private final AtomicLong leaseLosses = new AtomicLong();
  private final AtomicLong renewFailures = new AtomicLong();
  private final AtomicLong claims = new AtomicLong();
  private final AtomicLong claimsRefused = new AtomicLong();
  private final AtomicLong releases = new AtomicLong();
  private final AtomicLong storeErrors = new AtomicLong();
  private volatile boolean loopStoreDown;
  private String lastLoopError;
  private volatile String lastLeaseError;
  private volatile boolean leaseStoreDown;

  private enum State { RUNNING, STOPPING, CONFIRMED }

  /** A unit this member owns in the store. */
  private static final class Owned {
    final String unit;
    final long token;
    State state = State.RUNNING;

    Owned(String unit, long token) {
      this.unit = unit;
      this.token = token;
    }
  }

  private Divider(Builder b) {
    this.store = b.store;
    this.pool = b.pool;
    this.distribution = b.distribution;
    this.host = b.host;
    this.bindAddress = b.bindAddress != null ? b.bindAddress : (isLoopback(b.host) ? b.host : "0.0.0.0");
    this.requestedPort = b.port;
    this.capacity = b.capacity;
    this.maxMoves = b.maxConcurrentMoves;
    this.leaseTtl = b.leaseTtl;
    this.ttlNanos = b.leaseTtl.toNanos();
    this.renewNanos = b.renewEvery.toNanos();
    this.marginNanos = b.fenceMargin.toNanos();
    this.syncNanos = b.syncInterval.toNanos();
    this.holdNanos = b.releaseHold.toNanos();
    this.graceNanos = b.shutdownGrace.toNanos();
    this.affinity = new AtomicInteger(b.affinity);
    this.listeners.addAll(b.listeners);
  }

  /** A builder over {@code store}; the store is not closed by the divider. */
  public static Builder builder(Store store) {
    return new Builder(store);
  }

  // =====================================================================================================
  // public API

  /**
   * Adds a listener; only before {@link #start()} (events are not replayed). Listeners are called in the order they
   * were added.
   *
   * @throws IllegalStateException after start
   */
  public void addListener(UnitListener listener) {
    Objects.requireNonNull(listener, "listener");
    if (phase.get() != Phase.NEW) {
      throw new IllegalStateException("listeners can only be added before start()");
    }
    listeners.add(listener);
  }

  /**
   * Starts serving pings, registers in the pool (retried in the background while the store is unreachable) and starts
   * the reconciliation loop. Call once.
   *
   * @throws IllegalStateException if called twice, if no listener was set, or if the store rejects the registration
   *                               for another reason than being unreachable (e.g. the pool key holds a hash)
   * @throws java.io.UncheckedIOException if the ping port cannot be bound
   */
  public void start() {
    if (listeners.isEmpty()) {
      throw new IllegalStateException("no listener: set one with Divider.Builder.listener(...) or use a UnitRunner");
    }
    if (!phase.compareAndSet(Phase.NEW, Phase.RUNNING)) {
      throw new IllegalStateException("start() can be called only once (the divider is " + phase.get() + ")");
    }
    try {
      ping = new PingServer(bindAddress, requestedPort);
      memberId = host + ":" + ping.port();
      String tag = pool + "/" + memberId;
      events = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "allot-worker-events-" + tag);
        t.setDaemon(true);
        eventThread = t;
        return t;
      });
      renewer = Executors.newSingleThreadScheduledExecutor(daemon("allot-worker-lease-" + tag));
      watchdog = Executors.newSingleThreadScheduledExecutor(daemon("allot-worker-fence-" + tag));
      subscribe();
      try {
        register();
      } catch (StoreUnavailableException e) {
        leaseStoreDown = true;
        log.warn("pool={} member={} cannot register yet, retrying every {} ms: {}", pool, memberId,
            renewNanos / 1_000_000, e.toString());
      }
      renewer.scheduleAtFixedRate(this::leaseTick, renewNanos, renewNanos, TimeUnit.NANOSECONDS);
      long check = Math.max(1_000_000L, Math.min(50_000_000L, Math.min(marginNanos / 5, renewNanos / 2)));
      watchdog.scheduleAtFixedRate(this::watchdogTick, check, check, TimeUnit.NANOSECONDS);
      loopThread = daemon("allot-worker-loop-" + tag).newThread(this::loop);
      loopThread.start();
      log.info("pool={} member={} started (distribution={} affinity={} capacity={} leaseTtl={}ms renewEvery={}ms "
              + "fenceMargin={}ms syncInterval={}ms)", pool, memberId, distribution, affinity.get(),
          capacity == Integer.MAX_VALUE ? "unlimited" : capacity, ttlNanos / 1_000_000, renewNanos / 1_000_000,
          marginNanos / 1_000_000, syncNanos / 1_000_000);
    } catch (RuntimeException e) {
      phase.set(Phase.CANCELLED);
      shutdownQuietly();
      terminated.countDown();
      throw e;
    }
  }

  /**
   * The member id, {@code host:port}: the address the distributor pings and the field of the distribution hash.
   *
   * @throws IllegalStateException before {@link #start()} when the port is 0 (picked at start)
   */
  public String memberId() {
    String id = memberId;
    if (id != null) {
      return id;
    }
    if (requestedPort == 0) {
      throw new IllegalStateException("the member id is known after start() when port is 0");
    }
    return host + ":" + requestedPort;
  }

  /** The current session, empty while not registered (before the first registration, or fenced). */
  public OptionalLong session() {
    lock.lock();
    try {
      return registered ? OptionalLong.of(session) : OptionalLong.empty();
    } finally {
      lock.unlock();
    }
  }

  /**
   * When this member last fenced itself (epoch millis), 0 if it never did: the moment its lease stopped being
   * reliable ({@code leaseTtl - fenceMargin} after the last renewal that succeeded, or the store's refusal), which
   * is earlier than the {@link UnitListener#onLeaseLost} callback when the process was paused. Audit logs use it as
   * the end of the units' ownership.
   */
  public long lastFencedAtMillis() {
    return lastFencedAtMillis;
  }

  /**
   * The moment (epoch millis, estimated from the monotonic clock) until which this member trusts its lease: the
   * last successful renewal's send time + {@code leaseTtl - fenceMargin}. In the past once the lease is in doubt.
   * Applications that keep an audit log cap the times they record with it (a unit cannot have run past it); only
   * meaningful once the member has registered.
   */
  public long leaseDeadlineMillis() {
    return System.currentTimeMillis() + Math.floorDiv(fenceAtNanos - System.nanoTime(), 1_000_000L);
  }

  /**
   * True while this member may run units: registered, and its lease cannot have expired yet by the local clock
   * ({@code leaseTtl - fenceMargin} since the last renewal that succeeded). Cheap (no store call).
   */
  public boolean leaseValid() {
    return leaseHeld && System.nanoTime() - fenceAtNanos < 0;
  }

  /**
   * The units this member owns, with their fencing tokens, in claim order: claimed and started, not yet stopped and
   * released in the store. A unit still stopping (unconfirmed) is included. An immutable snapshot.
   */
  public Map<String, Long> assigned() {
    lock.lock();
    try {
      Map<String, Long> out = new LinkedHashMap<>();
      owned.forEach((u, o) -> out.put(u, o.token));
      return Collections.unmodifiableMap(out);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The application stopped {@code unit} after a {@link StopReason#REASSIGNED} or {@link StopReason#SHUTDOWN} stop:
   * it is released in the store right away, so its next owner can start it.
   *
   * @return true if the unit was waiting for this confirmation; false otherwise (not owned, not stopping, already
   *     confirmed, or forgotten after {@link StopReason#LEASE_LOST})
   */
  public boolean confirmStop(String unit) {
    Objects.requireNonNull(unit, "unit");
    boolean confirmed = false;
    lock.lock();
    try {
      Owned o = owned.get(unit);
      if (o != null && o.state == State.STOPPING) {
        o.state = State.CONFIRMED;
        confirmed = true;
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
    if (confirmed) {
      wake();
    }
    return confirmed;
  }

  /**
   * The application gives {@code unit} up; call it once the unit no longer runs. The unit is released in the store
   * (a {@link StopReason#RELEASED} stop is emitted if it was running) and is not claimed again for the release hold
   * ({@code releaseHold}, default 30 s) while it stays in this member's target; after the hold it is claimed again, so
   * a unit the table still gives this member is never lost. If the unit leaves the target meanwhile the hold ends.
   *
   * @return false if this member does not own the unit
   */
  public boolean release(String unit) {
    Objects.requireNonNull(unit, "unit");
    lock.lock();
    try {
      Owned o = owned.get(unit);
      if (o == null) {
        return false;
      }
      holdUntil.put(unit, System.nanoTime() + holdNanos);
      if (o.state == State.RUNNING) {
        emit(new UnitStop(unit, StopReason.RELEASED));
      }
      if (o.state != State.CONFIRMED) {
        o.state = State.CONFIRMED;
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
    wake();
    return true;
  }

  /** The affinity (weight) this member publishes; 0 = the distributor gives it no units. */
  public int affinity() {
    return affinity.get();
  }

  /** The most units this member owns at once ({@link Integer#MAX_VALUE} = no limit). */
  public int capacity() {
    return capacity;
  }

  /**
   * Sets the affinity (atomically) and publishes it with {@link Store#updateMember}. Lowering it stops nothing by
   * itself: the distributor recomputes the table and the units that move go through the normal handoff. A value
   * above 0 also ends a {@link #flush} (claiming resumes).
   *
   * @return the previous affinity
   * @throws IllegalArgumentException if {@code affinity < 0}
   */
  public int setAffinity(int affinity) {
    if (affinity < 0) {
      throw new IllegalArgumentException("affinity must be >= 0 but was " + affinity);
    }
    int previous = this.affinity.getAndSet(affinity);
    affinityChanged(affinity);
    return previous;
  }

  /**
   * Adds {@code delta} to the affinity atomically (concurrent calls all count) and publishes the result.
   *
   * @return the new affinity
   * @throws IllegalArgumentException (and changes nothing) if the result would be negative or overflow
   */
  public int alterAffinity(int delta) {
    int next = affinity.updateAndGet(a -> {
      long r = (long) a + delta;
      if (r < 0 || r > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("affinity " + a + " + " + delta + " is out of range [0, " + Integer.MAX_VALUE + "]");
      }
      return (int) r;
    });
    affinityChanged(next);
    return next;
  }

  /**
   * Drains this member: sets the affinity to 0, stops claiming, and waits until every owned unit has been stopped
   * (confirmed) and released, or the timeout. The units leave through the normal handoff once the distributor has
   * moved them away (an affinity-aware distributor does so on the affinity change). Claiming stays off until the
   * affinity is set above 0 again.
   *
   * @return true if nothing is owned any more
   * @throws IllegalStateException if called from a listener callback (the stops could never be delivered)
   */
  public boolean flush(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (Thread.currentThread() == eventThread) {
      throw new IllegalStateException("flush() must not be called from a listener callback: it waits for stops that"
          + " are delivered on that very thread");
    }
    lock.lock();
    try {
      draining = true;
    } finally {
      lock.unlock();
    }
    affinity.set(0);
    affinityVersion.incrementAndGet();
    wake();
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (!owned.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return owned.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Shuts the member down: stops the loop (nothing new is claimed), sends a {@link StopReason#SHUTDOWN} stop for
   * every running unit, releases each unit whose stop is confirmed within {@code shutdownGrace}, then deregisters and
   * closes the ping port. Units not confirmed in time are not released: they expire with the lease (they get
   * {@link StopReason#LEASE_LOST} when it runs out locally), and the member deregisters only then, so no other member
   * can claim them earlier. Blocks for at most about {@code shutdownGrace + leaseTtl}. Idempotent.
   */
  public void cancel() {
    if (phase.compareAndSet(Phase.NEW, Phase.CANCELLED)) {
      terminated.countDown();
      return;
    }
    if (!phase.compareAndSet(Phase.RUNNING, Phase.CANCELLING)) {
      if (Thread.currentThread() != eventThread && Thread.currentThread() != loopThread) {
        try {
          terminated.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return;
    }
    try {
      shutdown();
    } finally {
      phase.set(Phase.CANCELLED);
      terminated.countDown();
    }
  }

  /** {@link #flush(Duration)}, then {@link #cancel()}; returns what flush returned. */
  public boolean flushAndCancel(Duration timeout) {
    boolean flushed = flush(timeout);
    cancel();
    return flushed;
  }

  /** Same as {@link #cancel()}. */
  @Override
  public void close() {
    cancel();
  }

  /** Counters since the divider was built. */
  public DividerStats stats() {
    return new DividerStats(registrations.get(), leaseLosses.get(), renewFailures.get(), claims.get(),
        claimsRefused.get(), releases.get(), storeErrors.get());
  }

  @Override
  public String toString() {
    String id = memberId;
    return "Divider[pool=" + pool + ", member=" + (id == null ? host + ":" + requestedPort : id) + ", " + phase.get() + "]";
  }

  /** Changes each time the member registers or fences itself: a unit started under another generation is stale. */
  long generation() {
    return generation;
  }

  // =====================================================================================================
  // lease: register, renew, fence

  /** Registers (a new session). Throws what the store throws. */
  private void register() {
    if (phase.get() != Phase.RUNNING) {
      return;
    }
    ping.serving(true); // before the store can list us, so the distributor's first ping already succeeds
    long version = affinityVersion.get();
    int aff = affinity.get();
    long sent = System.nanoTime();
    long s;
    try {
      s = store.register(pool, memberId, aff, capacity, leaseTtl);
    } catch (RuntimeException e) {
      ping.serving(false);
      throw e;
    }
    long ack = System.nanoTime();
    boolean undo = false;
    lock.lock();
    try {
      if (phase.get() != Phase.RUNNING) {
        undo = true;
      } else {
        session = s;
        lastSession = s;
        registered = true;
        generation++;
        lastRenewSentNanos = sent;
        lastRenewAckNanos = ack;
        fenceAtNanos = sent + ttlNanos - marginNanos;
        leaseHeld = true;
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
    if (undo) { // cancel() ran meanwhile and saw no session
      ping.serving(false);
      try {
        store.deregister(pool, memberId, s);
      } catch (RuntimeException e) {
        log.debug("deregistering a session registered during cancel failed: {}", e.toString());
      }
      return;
    }
    publishedAffinityVersion.accumulateAndGet(version, Math::max);
    registrations.incrementAndGet();
    log.info("pool={} member={} registered, session={}", pool, memberId, s);
    wake();
  }

  /** Runs every renewEvery on its own thread: renew, or register again after a lease loss. */
  private void leaseTick() {
    try {
      if (phase.get() != Phase.RUNNING) {
        return;
      }
      boolean reg;
      long s;
      long g;
      long notBefore;
      lock.lock();
      try {
        reg = registered;
        s = session;
        g = generation;
        notBefore = reRegisterNotBeforeNanos;
      } finally {
        lock.unlock();
      }
      if (!reg) {
        if (System.nanoTime() - notBefore < 0) {
          return; // the old lease may still run: give the application the whole margin to stop
        }
        try {
          register();
          leaseStoreUp();
        } catch (StoreUnavailableException e) {
          leaseStoreDown(e);
        }
        return;
      }
      long sent = System.nanoTime();
      boolean ok;
      try {
        ok = store.renewMember(pool, memberId, s, leaseTtl);
      } catch (StoreUnavailableException e) {
        renewFailures.incrementAndGet();
        leaseStoreDown(e);
        return;
      }
      long ack = System.nanoTime();
      lock.lock();
      try {
        if (g != generation) {
          return; // fenced meanwhile: this session is abandoned
        }
        if (ok) {
          lastRenewSentNanos = Math.max(lastRenewSentNanos, sent);
          lastRenewAckNanos = Math.max(lastRenewAckNanos, ack);
          fenceAtNanos = lastRenewSentNanos + ttlNanos - marginNanos;
        } else {
          fenceLocked("the store refused to renew session " + s
              + " (another registration of this id superseded it, or the lease had already expired)");
        }
      } finally {
        lock.unlock();
      }
      leaseStoreUp();
    } catch (RuntimeException e) {
      renewFailures.incrementAndGet();
      String msg = e.toString();
      if (!msg.equals(lastLeaseError)) { // once per distinct error, not every tick
        lastLeaseError = msg;
        log.error("pool={} member={} lease renewal or registration failed (retried)", pool, memberId, e);
      }
    }
  }

  /** Runs every few ms on its own thread, so a renewal stuck in the store cannot delay the fence. */
  private void watchdogTick() {
    try {
      lock.lock();
      try {
        if (registered && System.nanoTime() - fenceAtNanos >= 0) {
          fenceLocked("no successful lease renewal for "
              + (System.nanoTime() - lastRenewSentNanos) / 1_000_000 + " ms (leaseTtl " + ttlNanos / 1_000_000
              + " ms - fenceMargin " + marginNanos / 1_000_000 + " ms)");
        }
      } finally {
        lock.unlock();
      }
    } catch (RuntimeException e) {
      log.error("pool={} member={} fence check failed", pool, memberId, e);
    }
  }

  private void fenceLocked(String reason) {
    long now = System.nanoTime();
    // the moment the lease stopped being reliable: the fence deadline, or now if the store refused a renewal earlier
    lastFencedAtMillis = System.currentTimeMillis() - Math.max(0, now - fenceAtNanos) / 1_000_000;
    generation++;
    registered = false;
    leaseHeld = false;
    reRegisterNotBeforeNanos = lastRenewAckNanos + ttlNanos;
    leaseLosses.incrementAndGet();
    int stopped = 0;
    for (Owned o : owned.values()) {
      if (o.state != State.CONFIRMED) {
        emit(new UnitStop(o.unit, StopReason.LEASE_LOST));
        stopped++;
      }
    }
    int forgotten = owned.size();
    owned.clear();
    refusedAt.clear();
    changed.signalAll();
    ping.serving(false);
    emitLeaseLost(reason);
    log.warn("pool={} member={} fenced itself: {}; {} units stopped (LEASE_LOST), {} forgotten; registering again once"
        + " the old lease has run out", pool, memberId, reason, stopped, forgotten);
  }

  private void leaseStoreDown(RuntimeException e) {
    if (!leaseStoreDown) {
      leaseStoreDown = true;
      log.warn("pool={} member={} store unreachable for the lease: {}", pool, memberId, e.toString());
    }
  }

  private void leaseStoreUp() {
    lastLeaseError = null;
    if (leaseStoreDown) {
      leaseStoreDown = false;
      log.info("pool={} member={} store reachable again for the lease", pool, memberId);
    }
  }

  // =====================================================================================================
  // reconciliation loop

  private void wake() {
    wakeups.offer(Boolean.TRUE);
  }

  private void loop() {
    while (phase.get() == Phase.RUNNING) {
      boolean again = false;
      try {
        again = round();
        lastLoopError = null;
        if (loopStoreDown) {
          loopStoreDown = false;
          log.info("pool={} member={} store reachable again", pool, memberId);
        }
      } catch (StoreUnavailableException e) {
        storeErrors.incrementAndGet();
        if (!loopStoreDown) {
          loopStoreDown = true;
          log.warn("pool={} member={} store unreachable, retrying every {} ms: {}", pool, memberId,
              syncNanos / 1_000_000, e.toString());
        }
      } catch (RuntimeException e) {
        storeErrors.incrementAndGet();
        String msg = e.toString();
        if (!msg.equals(lastLoopError)) { // once per distinct error, not every round
          lastLoopError = msg;
          log.error("pool={} member={} reconciliation failed (retried every round)", pool, memberId, e);
        }
      }
      if (again) {
        continue;
      }
      try {
        wakeups.poll(nextWaitNanos(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        if (phase.get() != Phase.RUNNING) {
          return;
        }
      }
    }
  }

  private long nextWaitNanos() {
    long wait = syncNanos;
    long now = System.nanoTime();
    lock.lock();
    try {
      for (long until : holdUntil.values()) {
        wait = Math.min(wait, Math.max(1_000_000L, until - now + 1_000_000L));
      }
    } finally {
      lock.unlock();
    }
    return wait;
  }

  /** One reconciliation round; true if more claims are due at once (maxConcurrentMoves reached). */
  private boolean round() {
    subscribe();
    long s;
    long g;
    lock.lock();
    try {
      if (!registered) {
        return false;
      }
      if (System.nanoTime() - fenceAtNanos >= 0) {
        // the watchdog has not run yet (a pause just ended): fence before anything else, never a normal stop
        // or a claim with a lease that ran out
        fenceLocked("no successful lease renewal for " + (System.nanoTime() - lastRenewSentNanos) / 1_000_000
            + " ms (seen by the reconciliation loop)");
        return false;
      }
      s = session;
      g = generation;
    } finally {
      lock.unlock();
    }
    publishAffinity(s);
    releaseConfirmed();

    List<String> target = SeedLayout.split(store.hashField(distribution, memberId));
    Set<String> targetSet = new LinkedHashSet<>(target);
    List<String> candidates = new ArrayList<>();
    long now = System.nanoTime();
    lock.lock();
    try {
      if (g != generation || phase.get() != Phase.RUNNING) {
        return false;
      }
      holdUntil.entrySet().removeIf(e -> now - e.getValue() >= 0 || !targetSet.contains(e.getKey()));
      int stopping = 0;
      for (Owned o : owned.values()) {
        if (o.state == State.STOPPING) {
          stopping++;
        }
      }
      for (Owned o : owned.values()) {
        if (stopping >= maxMoves) {
          break; // the rest follows as stops get confirmed (each confirmation wakes the loop)
        }
        if (o.state == State.RUNNING && !targetSet.contains(o.unit)) {
          o.state = State.STOPPING;
          stopping++;
          emit(new UnitStop(o.unit, StopReason.REASSIGNED));
        }
      }
      Set<String> want = new LinkedHashSet<>();
      for (String u : target) {
        if (!owned.containsKey(u) && !holdUntil.containsKey(u)) {
          want.add(u);
        }
      }
      wanted = want;
      refusedAt.keySet().retainAll(want);
      if (!draining && leaseValid()) {
        for (String u : want) {
          Long refused = refusedAt.get(u);
          if (refused == null || now - refused >= syncNanos / 2) { // half: the next timed round retries it
            candidates.add(u);
          }
        }
      }
    } finally {
      lock.unlock();
    }

    // claims go in batches of up to maxConcurrentMoves per round (one store round trip where the store can)
    int room;
    lock.lock();
    try {
      room = capacity - owned.size();
    } finally {
      lock.unlock();
    }
    if (room <= 0 || candidates.isEmpty()) {
      return false; // a release (which wakes the loop) makes room
    }
    List<String> batch = candidates.subList(0, Math.min(candidates.size(), Math.min(room, maxMoves)));
    Map<String, Long> tokens = store.claimAll(pool, batch, memberId, s);
    for (String u : batch) {
      Long t = tokens.get(u);
      accept(u, t == null ? OptionalLong.empty() : OptionalLong.of(t), g);
    }
    return candidates.size() > batch.size(); // another round at once; refused units are not candidates again at once
  }

  /** Takes the result of claiming {@code unit}: starts it if the claim succeeded and still may run; true if started. */
  private boolean accept(String unit, OptionalLong token, long g) {
    long now = System.nanoTime();
    boolean giveBack = false;
    lock.lock();
    try {
      if (token.isEmpty()) {
        claimsRefused.incrementAndGet();
        refusedAt.put(unit, now);
        return false;
      }
      refusedAt.remove(unit);
      if (g == generation && phase.get() == Phase.RUNNING && !draining && leaseValid() && !owned.containsKey(unit)
          && !holdUntil.containsKey(unit) && owned.size() < capacity) {
        owned.put(unit, new Owned(unit, token.getAsLong()));
        claims.incrementAndGet();
        changed.signalAll();
        emit(new UnitStart(unit, token.getAsLong()));
        return true;
      }
      giveBack = true; // fenced, cancelled or draining meanwhile: never started, hand it back
    } finally {
      lock.unlock();
    }
    if (giveBack) {
      try {
        store.releaseUnit(pool, unit, memberId, token.getAsLong());
      } catch (RuntimeException e) {
        log.debug("giving back unclaimed unit {} failed (it expires with the lease): {}", unit, e.toString());
      }
    }
    return false;
  }

  /** Releases, in the store, every unit whose stop was confirmed. Throws what the store throws. */
  private void releaseConfirmed() {
    List<Owned> confirmed = new ArrayList<>();
    lock.lock();
    try {
      for (Owned o : owned.values()) {
        if (o.state == State.CONFIRMED) {
          confirmed.add(o);
        }
      }
    } finally {
      lock.unlock();
    }
    for (Owned o : confirmed) {
      boolean ok = store.releaseUnit(pool, o.unit, memberId, o.token);
      lock.lock();
      try {
        if (owned.get(o.unit) == o) {
          owned.remove(o.unit);
          changed.signalAll();
        }
      } finally {
        lock.unlock();
      }
      if (ok) {
        releases.incrementAndGet();
      } else {
        log.info("pool={} member={} unit {} (token {}) was no longer owned when released", pool, memberId, o.unit, o.token);
      }
    }
  }

  private void affinityChanged(int value) {
    affinityVersion.incrementAndGet();
    if (value > 0) {
      lock.lock();
      try {
        draining = false;
      } finally {
        lock.unlock();
      }
    }
    wake();
  }

  private void publishAffinity(long s) {
    long version = affinityVersion.get();
    if (version <= publishedAffinityVersion.get()) {
      return;
    }
    int value = affinity.get(); // read after the version: at least as new as it
    if (store.updateMember(pool, memberId, s, value, capacity)) {
      publishedAffinityVersion.accumulateAndGet(version, Math::max);
      log.info("pool={} member={} affinity={} published", pool, memberId, value);
    }
  }

  private void subscribe() {
    if (subscriptions != null) {
      return;
    }
    List<Subscription> subs = new ArrayList<>();
    try {
      subs.add(store.subscribe(Store.notifyChannel(distribution), m -> wake()));
      subs.add(store.subscribe(Store.ownersChannel(pool), this::onReleased));
      subscriptions = subs;
    } catch (RuntimeException e) {
      subs.forEach(Divider::closeQuietly);
      log.debug("pool={} subscribing failed (retried next round; polling meanwhile): {}", pool, e.toString());
    }
  }

  private void onReleased(String unit) {
    if (wanted.contains(unit)) {
      refusedAt.remove(unit);
      wake();
    }
  }

  // =====================================================================================================
  // events

  /** Queues an event; callers hold the lock, so events leave in the order of the state changes. */
  private void emit(UnitEvent e) {
    long g = generation; // callers hold the lock
    try {
      events.execute(() -> deliver(e, g));
    } catch (RejectedExecutionException ex) {
      log.warn("pool={} member={} event {} dropped: the divider is closed", pool, memberId, e);
    }
  }

  private void emitLeaseLost(String reason) {
    try {
      events.execute(() -> {
        for (UnitListener l : listeners) {
          try {
            l.onLeaseLost(reason);
          } catch (RuntimeException ex) {
            log.warn("listener {} failed on lease loss", l, ex);
          }
        }
      });
    } catch (RejectedExecutionException ex) {
      log.debug("lease-loss callback dropped: closed");
    }
  }

  private void deliver(UnitEvent e, long g) {
    if (e instanceof UnitStart && (g != generation || !leaseValid())) {
      // emitted before a pause (or a slow listener) and delivered after the lease ran out: the member has fenced
      // itself or is about to, so the unit must not start; its LEASE_LOST stop follows
      log.debug("pool={} member={} start of {} withheld: the lease ran out before it could be delivered", pool,
          memberId, e);
      return;
    }
    for (UnitListener l : listeners) {
      try {
        if (e instanceof UnitStart s) {
          l.onStart(s);
        } else {
          l.onStop((UnitStop) e);
        }
      } catch (RuntimeException ex) {
        log.warn("pool={} member={} listener failed on {}", pool, memberId, e, ex);
      }
    }
  }

  // =====================================================================================================
  // shutdown

  private void shutdown() {
    boolean onEventThread = Thread.currentThread() == eventThread;
    // 1. no more claims: stop the loop
    wake();
    if (loopThread != null && Thread.currentThread() != loopThread) {
      try {
        loopThread.join(Math.max(1000L, graceNanos / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // 2. stop every running unit
    lock.lock();
    try {
      for (Owned o : owned.values()) {
        if (o.state == State.RUNNING) {
          o.state = State.STOPPING;
          emit(new UnitStop(o.unit, StopReason.SHUTDOWN));
        }
      }
    } finally {
      lock.unlock();
    }
    // 3. release what gets confirmed within the grace, while the lease (still renewed) holds
    long graceEnd = System.nanoTime() + graceNanos;
    boolean storeOk = true;
    while (storeOk) {
      boolean anyConfirmed = false;
      lock.lock();
      try {
        if (!registered || owned.isEmpty()) {
          break;
        }
        for (Owned o : owned.values()) {
          anyConfirmed |= o.state == State.CONFIRMED;
        }
        if (!anyConfirmed) {
          long left = Math.min(graceEnd, fenceAtNanos) - System.nanoTime();
          if (left <= 0 || onEventThread) {
            break;
          }
          changed.awaitNanos(Math.min(left, 50_000_000L));
          continue;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } finally {
        lock.unlock();
      }
      try {
        releaseConfirmed();
      } catch (RuntimeException e) {
        storeOk = false;
        log.warn("pool={} member={} releasing units at shutdown failed (they expire with the lease): {}", pool,
            memberId, e.toString());
      }
    }
    // 4. stop renewing; units still unconfirmed expire with the lease: wait for that before deregistering
    stopExecutor(renewer);
    lock.lock();
    try {
      if (registered && !owned.isEmpty()) {
        log.warn("pool={} member={} {} units not confirmed within shutdownGrace; they expire with the lease", pool,
            memberId, owned.size());
        long expiry = lastRenewAckNanos + ttlNanos;
        long left;
        while ((left = expiry - System.nanoTime()) > 0) {
          changed.awaitNanos(left); // the watchdog fences meanwhile (LEASE_LOST) at ttl - margin
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
    stopExecutor(watchdog);
    long drop;
    lock.lock();
    try {
      drop = registered ? session : lastSession;
      registered = false;
      leaseHeld = false;
      generation++;
    } finally {
      lock.unlock();
    }
    if (drop != 0) {
      try {
        store.deregister(pool, memberId, drop);
        log.info("pool={} member={} deregistered (session {})", pool, memberId, drop);
      } catch (RuntimeException e) {
        log.warn("pool={} member={} deregistration failed (the lease expires on its own): {}", pool, memberId, e.toString());
      }
    }
    // 5. ping port, subscriptions, event thread
    shutdownQuietly();
    if (events != null) {
      events.shutdown();
      if (!onEventThread) {
        try {
          if (!events.awaitTermination(5, TimeUnit.SECONDS)) {
            log.warn("pool={} member={} a listener callback did not return within 5 s of cancel", pool, memberId);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    log.info("pool={} member={} cancelled", pool, memberId);
  }

  /** Closes what start() opened, except the event thread. */
  private void shutdownQuietly() {
    stopExecutor(renewer);
    stopExecutor(watchdog);
    List<Subscription> subs = subscriptions;
    if (subs != null) {
      subs.forEach(Divider::closeQuietly);
    }
    if (ping != null) {
      ping.close(1000);
    }
    if (events != null && phase.get() == Phase.CANCELLED && loopThread == null) {
      events.shutdown(); // start() failed
    }
  }

  private static void stopExecutor(ScheduledExecutorService ex) {
    if (ex == null) {
      return;
    }
    ex.shutdownNow();
    try {
      ex.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Subscription s) {
    try {
      s.close();
    } catch (RuntimeException e) {
      log.debug("closing a subscription: {}", e.toString());
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  private static boolean isLoopback(String host) {
    return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
  }

  // =====================================================================================================
  // builder

  /**
   * Settings of a {@link Divider}. Every setting has a default except {@code pool}; {@link #build()} checks them
   * and names the offending setting in its {@link IllegalArgumentException}.
   */
  public static final class Builder {
    private final Store store;
    private String pool;
    private String distribution = DEFAULT_DISTRIBUTION;
    private String host = "127.0.0.1";
    private String bindAddress;
    private int port;
    private int affinity = 1;
    private int capacity = Integer.MAX_VALUE;
    private Duration leaseTtl = Duration.ofMillis(1500);
    private Duration renewEvery = Duration.ofMillis(300);
    private Duration fenceMargin = Duration.ofMillis(500);
    private Duration syncInterval = Duration.ofMillis(500);
    private int maxConcurrentMoves = 16;
    private Duration releaseHold = Duration.ofSeconds(30);
    private Duration shutdownGrace = Duration.ofSeconds(5);
    private final List<UnitListener> listeners = new ArrayList<>();

    private Builder(Store store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /** The pool: its services list key (the distributor's group). Required; must not contain ':'. */
    public Builder pool(String pool) {
      this.pool = pool;
      return this;
    }

    /** The distribution hash key; default {@value Divider#DEFAULT_DISTRIBUTION}. */
    public Builder distribution(String distribution) {
      this.distribution = distribution;
      return this;
    }

    /** The port pings are served on; 0 (the default) picks a free one at start. Part of the member id. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** The host the distributor reaches this member at, the first part of the member id; default 127.0.0.1. */
    public Builder host(String advertisedHost) {
      this.host = advertisedHost;
      return this;
    }

    /**
     * The address the ping server binds; default: the advertised host if it is a loopback address, else 0.0.0.0.
     */
    public Builder bindAddress(String bindAddress) {
      this.bindAddress = bindAddress;
      return this;
    }

    /** The initial affinity (weight), default 1; 0 = no units. */
    public Builder affinity(int affinity) {
      this.affinity = affinity;
      return this;
    }

    /** The most units owned at once (also published for the distributor); default unlimited. */
    public Builder capacity(int capacity) {
      this.capacity = capacity;
      return this;
    }

    /**
     * The lease TTL in store time, default 1.5 s: a member killed with -9 loses its units about this long after its
     * last renewal (the distributor reacts to the expiry), so it is the main term of failover time.
     */
    public Builder leaseTtl(Duration leaseTtl) {
      this.leaseTtl = leaseTtl;
      return this;
    }

    /** Time between two lease renewals, default 300 ms: three tries fit before the fence. */
    public Builder renewEvery(Duration renewEvery) {
      this.renewEvery = renewEvery;
      return this;
    }

    /**
     * How long before the lease can expire the member fences itself, default 500 ms: the time the application has to
     * stop a unit after {@link StopReason#LEASE_LOST} before another member may claim it.
     */
    public Builder fenceMargin(Duration fenceMargin) {
      this.fenceMargin = fenceMargin;
      return this;
    }

    /** Time between two reconciliations without a notification, default 500 ms (notifications are the fast path). */
    public Builder syncInterval(Duration syncInterval) {
      this.syncInterval = syncInterval;
      return this;
    }

    /** Claims per round, and unconfirmed {@link StopReason#REASSIGNED} stops at a time; default 16. */
    public Builder maxConcurrentMoves(int maxConcurrentMoves) {
      this.maxConcurrentMoves = maxConcurrentMoves;
      return this;
    }

    /** How long a unit given up with {@link Divider#release(String)} is not claimed again; default 30 s. */
    public Builder releaseHold(Duration releaseHold) {
      this.releaseHold = releaseHold;
      return this;
    }

    /** How long {@link Divider#cancel()} waits for SHUTDOWN stops to be confirmed; default 5 s. */
    public Builder shutdownGrace(Duration shutdownGrace) {
      this.shutdownGrace = shutdownGrace;
      return this;
    }

    /** Adds a listener (may be called several times; called in this order). */
    public Builder listener(UnitListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Checks the settings and builds the divider (nothing runs before {@link Divider#start()}).
     *
     * @throws IllegalArgumentException naming the setting that is wrong
     */
    public Divider build() {
      if (pool == null || pool.isEmpty() || pool.indexOf(':') >= 0) {
        throw new IllegalArgumentException("pool must be set, non-empty and contain no ':' but was " + quote(pool));
      }
      if (distribution == null || distribution.isEmpty()) {
        throw new IllegalArgumentException("distribution must be a non-empty hash key but was " + quote(distribution));
      }
      if (host == null || host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("host must be a non-empty host name or address but was " + quote(host));
      }
      if (bindAddress != null && bindAddress.isBlank()) {
        throw new IllegalArgumentException("bindAddress must not be blank");
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in [0, 65535] (0 = any free port) but was " + port);
      }
      if (affinity < 0) {
        throw new IllegalArgumentException("affinity must be >= 0 but was " + affinity);
      }
      if (capacity < 0) {
        throw new IllegalArgumentException("capacity must be >= 0 but was " + capacity);
      }
      positive("leaseTtl", leaseTtl);
      positive("renewEvery", renewEvery);
      positive("fenceMargin", fenceMargin);
      positive("syncInterval", syncInterval);
      if (leaseTtl.toMillis() < 1) {
        throw new IllegalArgumentException("leaseTtl must be at least 1 ms but was " + leaseTtl.toMillis() + " ms");
      }
      if (fenceMargin.compareTo(leaseTtl) >= 0) {
        throw new IllegalArgumentException("fenceMargin (" + fenceMargin.toMillis() + " ms) must be shorter than "
            + "leaseTtl (" + leaseTtl.toMillis() + " ms)");
      }
      Duration window = leaseTtl.minus(fenceMargin);
      if (renewEvery.compareTo(window) >= 0) {
        throw new IllegalArgumentException("renewEvery (" + renewEvery.toMillis() + " ms) must be shorter than "
            + "leaseTtl - fenceMargin (" + window.toMillis() + " ms), or the member fences itself between two renewals");
      }
      if (maxConcurrentMoves < 1) {
        throw new IllegalArgumentException("maxConcurrentMoves must be >= 1 but was " + maxConcurrentMoves);
      }
      notNegative("releaseHold", releaseHold);
      notNegative("shutdownGrace", shutdownGrace);
      return new Divider(this);
    }

    private static void positive(String name, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be a positive duration but was " + d);
      }
    }

    private static void notNegative(String name, Duration d) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException(name + " must be zero or positive but was " + d);
      }
    }

    private static String quote(String s) {
      return s == null ? "null" : "'" + s + "'";
    }
  }
}
