package io.allot.worker;

import io.allot.store.MemberMeta;
import io.allot.store.Membership;
import io.allot.store.Safety;
import io.allot.store.Store;
import io.grpc.ServerServiceDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
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
 *       public void onStop(UnitStop s)   {
 *         ...stop the run s.token() of s.unit()...
 *         if (s.reason().awaitsConfirmation()) d.confirmStop(s.unit(), s.token()); // all but LEASE_LOST
 *       }
 *     })
 *     .build();
 * d.start();
 * ...
 * d.flushAndCancel(Duration.ofSeconds(30));
 * }</pre>
 *
 * <h2>Protocol</h2>
 * Level-triggered reconciliation on one loop thread, every {@code syncInterval}, on a table change
 * ({@link io.allot.store.Topic#table}), when a unit it waits for is released ({@link io.allot.store.Topic#releases})
 * and on the application's calls:
 * <ol>
 *   <li><b>Lease.</b> {@link io.allot.store.Membership#register} at start gives a session, renewed every
 *   {@code renewEvery} on its own thread. The lease is valid until at least {@code lastSuccessfulRenewSent + leaseTtl}
 *   (store time cannot run out before a request was sent). When {@code leaseTtl - fenceMargin} has passed since then
 *   without a successful renewal, or the store refuses one, the member <em>fences itself</em>: a
 *   {@link StopReason#LEASE_LOST} stop for every unit, which it then forgets (without releasing: the store may be
 *   unreachable; they expire with the lease); health turns NOT_SERVING; it registers again (a new session) once the
 *   old lease has surely run out, then resumes.</li>
 *   <li><b>Target</b> {@code T} = this member's field of the distribution hash, split; owned {@code O}.</li>
 *   <li>Each unit of {@code O} not in {@code T}: a {@link StopReason#REASSIGNED} stop; after
 *   {@link #confirmStop(String, long)}, {@link io.allot.store.Ownership#releaseAll} (the next owner is notified). At most
 *   {@code maxConcurrentMoves} such stops are not yet released at a time.</li>
 *   <li>Each unit of {@code T} not in {@code O} (not on release hold, within {@code capacity}, at most
 *   {@code maxConcurrentMoves} per round, none while flushing): {@link io.allot.store.Ownership#claimAll}; on a
 *   token, a {@link UnitStart}. A refused claim (the previous owner is still stopping, or its lease has not expired)
 *   is retried when the store announces the unit's release, or after {@code syncInterval}.</li>
 *   <li>Pings ({@code grpc.health.v1} and the legacy {@code proto.GRPCPinger/Ping}) are answered from
 *   {@link #start()} until {@link #cancel()}; SERVING only while registered. On a port of the divider's own, or on the
 *   application's gRPC server ({@link Builder#pingsOnAppServer(int)}, {@link #pingServices()}).</li>
 * </ol>
 * The store never lets two live sessions own a unit, and a member stops a unit before its lease can expire in store
 * time, so no unit runs on two members at once — provided the application stops a unit when told to (at once for
 * {@code LEASE_LOST}: it has {@code fenceMargin} before another member may claim it) and listener callbacks return
 * quickly.
 *
 * <p>Inside, one package-private part per job (listed with their guards in the module README): {@code Settings},
 * {@code MemberSession} with {@code LeaseDeadline}, {@code ReconcileLoop} with the pure {@code Reconciler} and a
 * {@code TargetSource}, {@code EventDispatcher}, {@code MemberShutdown}, {@code PingEndpoint}, {@code PublishedMeta};
 * their shared state is guarded by one {@code StateLock}.
 *
 * <p>All methods are thread-safe. Nothing throws a checked exception; store failures are retried, not thrown.
 */
public final class Divider implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Divider.class);

  /** Default distribution hash, as the distributor's {@code -distribution-namespace}. */
  public static final String DEFAULT_DISTRIBUTION = "sys-matching-table";

  /**
   * Default lease TTL ({@link Builder#leaseTtl}): 1 s, so that failover after a kill (this, plus the store's clock
   * margin, plus one claim round) stays within 1.5 s p99 (issue 22; 1.5 s before, which put failover at 1.6-1.9 s).
   */
  public static final Duration DEFAULT_LEASE_TTL = Duration.ofMillis(1000);

  /**
   * Default time between two lease renewals ({@link Builder#renewEvery}): 100 ms, so that a stall of the renewals
   * tolerated before the fence ({@code leaseTtl - fenceMargin - renewEvery}) is 700 ms, as with the earlier defaults
   * (1500 - 500 - 300 ms).
   */
  public static final Duration DEFAULT_RENEW_EVERY = Duration.ofMillis(100);

  /**
   * Default fence margin ({@link Builder#fenceMargin}): 200 ms; with the store's clock margin (200 ms) the application
   * has 400 ms from {@link StopReason#LEASE_LOST} until another member may claim its units.
   */
  public static final Duration DEFAULT_FENCE_MARGIN = Duration.ofMillis(200);

  /** Default time between two reconciliations without a notification ({@link Builder#syncInterval}). */
  public static final Duration DEFAULT_SYNC_INTERVAL = Duration.ofMillis(500);

  private enum Phase { NEW, RUNNING, CANCELLING, CANCELLED }

  private final Settings settings;
  /** The store's safety settings, read once. */
  private final Safety safety;
  /** Thread-safe; grows only before start(). */
  private final List<UnitListener> listeners = new CopyOnWriteArrayList<>();
  /** Atomic: NEW -> RUNNING -> CANCELLING -> CANCELLED (or NEW -> CANCELLED). */
  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);
  /** The clock, threads and locks ({@link DividerBackend#system()} unless a simulator injected its own). */
  private final DividerBackend backend;
  /** Raised when the divider is CANCELLED. */
  private final Wakeup terminated;
  /** Set once by start(). */
  private volatile String memberId;

  private final StateLock lock;
  private final LeaseDeadline lease;
  private final Reconciler units;
  private final PublishedMeta meta;
  private final Counters counters = new Counters();
  private final PingEndpoint pings;
  private final EventDispatcher events;
  private final MemberSession session;
  private final ReconcileLoop loop;
  private final MemberShutdown shutdown;
  /** Where start() binds the meters, or null; immutable. */
  private final io.micrometer.core.instrument.MeterRegistry meterRegistry;

  private Divider(Store store, Settings settings, List<UnitListener> listeners,
      java.util.function.ToIntFunction<String> unitCost, DividerBackend backend,
      io.micrometer.core.instrument.MeterRegistry meterRegistry) {
    this.meterRegistry = meterRegistry;
    this.settings = settings;
    this.backend = backend;
    this.terminated = new Wakeup(backend);
    this.lock = new StateLock(backend);
    this.listeners.addAll(listeners);
    this.safety = store.safety();
    this.lease = new LeaseDeadline(settings.ttlNanos(), settings.marginNanos(), safety.clockMargin().toNanos(),
        backend::nanoTime);
    this.units = new Reconciler(settings.capacity(), settings.maxConcurrentMoves(), settings.claimBatch(),
        settings.holdNanos(),
        settings.syncNanos() / 2, // half: the next timed round retries a refused claim
        unitCost);
    this.meta = new PublishedMeta(settings.meta());
    this.pings = new PingEndpoint(settings);
    this.events = new EventDispatcher(this.listeners, lease, lock, backend,
        new WorkerEvents(io.allot.store.events.EventWriter.of(store), settings.pool()));
    Membership membership = store.membership(settings.pool());
    this.session = new MemberSession(settings, backend, membership, store.clock(), safety.clockMargin().toNanos(), lock, lease,
        units, events, pings, meta, counters, this::running, this::renewing, this::wake);
    this.loop = new ReconcileLoop(settings, backend, store.ownership(settings.pool()), membership, store.notifications(),
        new TableTargets(store, settings.distribution()), lock, lease, session, units, events, meta, counters,
        this::running);
    this.shutdown = new MemberShutdown(settings, lock, lease, units, session, loop, events, pings);
  }

  /** A builder over {@code store}; the store is not closed by the divider. */
  public static Builder builder(Store store) {
    return new Builder(store);
  }

  // =====================================================================================================
  // lifecycle

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
   * With {@link Builder#pingsOnAppServer(int)}: the ping services ({@code grpc.health.v1.Health} and
   * {@code proto.GRPCPinger}) to add to the application's own gRPC server, whose port is part of the member id. Add
   * them to the server's builder before it is built, start the server, then {@link #start()} the divider:
   *
   * <pre>{@code
   * Divider d = Divider.builder(store).pool("sys-robots-list").host("10.0.0.7").pingsOnAppServer(8080)
   *     .listener(listener).build();
   * ServerBuilder<?> sb = NettyServerBuilder.forPort(8080).addService(myService);
   * d.pingServices().forEach(sb::addService);
   * Server server = sb.build().start();
   * d.start(server);           // checks that the server listens and serves the ping services
   * ...
   * d.cancel();                // health turns NOT_SERVING for good; the server stays yours to shut down
   * }</pre>
   *
   * {@link #start(io.grpc.Server)} checks the server; {@link #start()} works too when the port is known, but can
   * only check that this method was called.
   *
   * The health service answers for the whole server (service {@code ""}): SERVING while the member is registered.
   * Do not add another {@code grpc.health.v1.Health} service to that server: gRPC keeps only the last service of a
   * name, silently. The same definitions are returned on every call.
   *
   * @throws IllegalStateException if this divider serves pings on a port of its own (no {@code pingsOnAppServer})
   */
  public List<ServerServiceDefinition> pingServices() {
    return pings.servicesForAppServer();
  }

  /**
   * Starts serving pings, registers in the pool (retried in the background while the store is unreachable) and starts
   * the reconciliation loop. Call once.
   *
   * <p>If the member id is live in the pool under another session, it waits until the store says that session's
   * lease is over and registers then (a restart of this member before its old lease ran out), for at most
   * {@code leaseTtl + clockMargin + renewEvery}; if the id is still live then, another process advertises the same
   * address and this start fails. It logs a warning if {@code leaseTtl} is longer than the store's lost-state guard
   * ({@link Safety#lostStateGuard()}).
   *
   * @throws IllegalStateException if called twice, if no listener was set, with {@link Builder#pingsOnAppServer(int)}
   *                               if {@link #pingServices()} was never called or the port is 0 (use
   *                               {@link #start(io.grpc.Server)}), if another process keeps the member id live
   *                               (the message names the id; the cause is the store's
   *                               {@link io.allot.store.MemberConflictException}), or if the store rejects the
   *                               registration for another reason than being unreachable (e.g. the pool key holds a
   *                               hash)
   * @throws java.io.UncheckedIOException if the ping port cannot be bound
   */
  public void start() {
    start(pings::open);
  }

  /**
   * With {@link Builder#pingsOnAppServer(int)}: starts the divider on the application's gRPC server, which must be
   * started already and serve {@link #pingServices()}. It checks both (so a forgotten service, or another health
   * service that silently replaced the divider's, fails here instead of failing every ping), and takes the port of
   * the member id from the server (it must equal {@code pingsOnAppServer}'s unless that was 0). Then as
   * {@link #start()}.
   *
   * @throws IllegalStateException as {@link #start()}, if this divider serves pings on a port of its own, if the
   *                               server is not started, listens on another port, or does not serve the divider's
   *                               ping services
   */
  public void start(io.grpc.Server appServer) {
    Objects.requireNonNull(appServer, "appServer");
    start(() -> pings.open(appServer));
  }

  private void start(java.util.function.IntSupplier openPings) {
    if (listeners.isEmpty()) {
      throw new IllegalStateException("no listener: set one with Divider.Builder.listener(...) or use a UnitRunner");
    }
    if (!phase.compareAndSet(Phase.NEW, Phase.RUNNING)) {
      throw new IllegalStateException("start() can be called only once (the divider is " + phase.get() + ")");
    }
    settings.guardWarning(safety).ifPresent(w -> log.warn("pool={} {}", settings.pool(), w));
    try {
      String id = settings.host() + ":" + openPings.getAsInt();
      memberId = id;
      if (meterRegistry != null) {
        DividerMeters.bind(meterRegistry, this, counters, settings.pool(), id);
      }
      String tag = settings.pool() + "/" + id;
      events.start("pool=" + settings.pool() + " member=" + id);
      loop.prepare(id);
      session.start(id, tag);
      loop.start(tag);
      log.info("pool={} member={} started (distribution={} affinity={} capacity={} leaseTtl={}ms renewEvery={}ms "
              + "fenceMargin={}ms syncInterval={}ms pings={})", settings.pool(), id, settings.distribution(),
          meta.affinity(), settings.capacity() == Integer.MAX_VALUE ? "unlimited" : settings.capacity(),
          settings.leaseTtl().toMillis(), settings.renewEvery().toMillis(), settings.fenceMargin().toMillis(),
          settings.syncInterval().toMillis(), settings.appServer() ? "application server" : "own port");
    } catch (RuntimeException e) {
      phase.set(Phase.CANCELLED);
      shutdown.afterFailedStart();
      terminated.raise();
      throw e;
    }
  }

  /**
   * Shuts the member down: stops the loop (nothing new is claimed), sends a {@link StopReason#SHUTDOWN} stop for
   * every running unit, releases each unit whose stop is confirmed within {@code shutdownGrace}, then deregisters and
   * closes the ping port. Units not confirmed in time are not released: they expire with the lease (they get
   * {@link StopReason#LEASE_LOST} when it runs out locally), and the member deregisters only then, so no other member
   * can claim them earlier. Likewise after a self-fence, the member deregisters only once the fenced lease has surely
   * run out (the last acknowledged renewal + {@code leaseTtl} + the store's clock margin). Blocks for at most about
   * {@code shutdownGrace + leaseTtl + clockMargin}. Idempotent.
   */
  public void cancel() {
    if (phase.compareAndSet(Phase.NEW, Phase.CANCELLED)) {
      terminated.raise();
      return;
    }
    if (!phase.compareAndSet(Phase.RUNNING, Phase.CANCELLING)) {
      if (!events.onEventThread() && !loop.onLoopThread()) {
        try {
          terminated.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return;
    }
    try {
      shutdown.run(memberId);
    } finally {
      phase.set(Phase.CANCELLED);
      terminated.raise();
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

  // =====================================================================================================
  // state

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
    if (settings.port() == 0) {
      throw new IllegalStateException("the member id is known after start() when port is 0");
    }
    return settings.host() + ":" + settings.port();
  }

  /** The current session, empty while not registered (before the first registration, or fenced). */
  public OptionalLong session() {
    return session.session();
  }

  /**
   * When this member last fenced itself (epoch millis), 0 if it never did: the moment its lease stopped being
   * reliable ({@code leaseTtl - fenceMargin} after the last renewal that succeeded, or the store's refusal), which
   * is earlier than the {@link UnitListener#onLeaseLost} callback when the process was paused. Audit logs use it as
   * the end of the units' ownership.
   */
  public long lastFencedAtMillis() {
    return session.lastFencedAtMillis();
  }

  /**
   * The moment (epoch millis, estimated from the monotonic clock) until which this member trusts its lease: the
   * last successful renewal's send time + {@code leaseTtl - fenceMargin}. In the past once the lease is in doubt.
   * Applications that keep an audit log cap the times they record with it (a unit cannot have run past it); only
   * meaningful once the member has registered.
   */
  public long leaseDeadlineMillis() {
    return lease.deadlineMillis(backend.currentTimeMillis());
  }

  /**
   * True while this member may run units: registered, and its lease cannot have expired yet by the local clock
   * ({@code leaseTtl - fenceMargin} since the last renewal that succeeded). Cheap (no store call).
   */
  public boolean leaseValid() {
    return lease.valid();
  }

  /**
   * The units this member owns, with their fencing tokens, in claim order: claimed and started, not yet stopped and
   * released in the store. A unit still stopping (unconfirmed) is included. An immutable snapshot.
   */
  public Map<String, Long> assigned() {
    return lock.get(units::assigned);
  }

  /** Counters since the divider was built. */
  public DividerStats stats() {
    return counters.snapshot();
  }

  /** Changes each time the member registers or fences itself: a unit started under another generation is stale. */
  long generation() {
    return lease.generation();
  }

  // =====================================================================================================
  // the application's calls

  /**
   * The application stopped the run of {@code unit} with {@code token} ({@link UnitStop#token()}) after a
   * {@link StopReason#REASSIGNED}, {@link StopReason#RELEASED} or {@link StopReason#SHUTDOWN} stop: it is released in
   * the store right away (with the release hold after {@code RELEASED}), so its next owner can start it. A
   * confirmation naming another run (a late one from an earlier run of the same unit) changes nothing.
   *
   * @return true if that run was waiting for this confirmation; false otherwise (another token, not owned, not
   *     stopping, already confirmed, or forgotten after {@link StopReason#LEASE_LOST})
   */
  public boolean confirmStop(String unit, long token) {
    Objects.requireNonNull(unit, "unit");
    boolean confirmed = lock.get(() -> {
      boolean c = units.confirmStop(unit, token);
      if (c) {
        lock.signalAll();
      }
      return c;
    });
    if (confirmed) {
      loop.confirmed(); // released at once by the releaser, which then wakes the loop for the next stop, if any
      // waits for this one (maxConcurrentMoves counts a move until its release)
    }
    return confirmed;
  }

  /**
   * The application gives up the run of {@code unit} with {@code token} ({@link UnitStart#token()}). It goes through
   * the normal stopping state: a running unit gets a {@link StopReason#RELEASED} stop, and once the application has
   * confirmed it ({@link #confirmStop(String, long)}; a {@link UnitRunner} does when the handler returns), the unit is
   * released in the store with the release hold ({@code releaseHold}, default 30 s): the distributor gives it to
   * another member at once, and this member does not claim it again while the hold lasts and the unit stays in its
   * target. After the hold it may be claimed again, so a unit the table still gives this member is never lost. If the
   * unit leaves the target meanwhile the local hold ends. On a unit already stopping, the hold is added and no second
   * stop is emitted.
   *
   * @return false if this member does not own that run (another token, or not owned)
   */
  public boolean release(String unit, long token) {
    Objects.requireNonNull(unit, "unit");
    Reconciler.Released r = lock.get(() -> {
      Reconciler.Released was = units.release(unit, token, lease.now());
      if (was == Reconciler.Released.WAS_RUNNING) {
        events.emit(new UnitStop(unit, token, StopReason.RELEASED));
      }
      if (was != Reconciler.Released.NOT_OWNED) {
        lock.signalAll();
      }
      return was;
    });
    if (r == Reconciler.Released.NOT_OWNED) {
      return false;
    }
    wake();
    return true;
  }

  /** The affinity (weight) this member publishes; 0 = the distributor gives it no units. */
  public int affinity() {
    return meta.affinity();
  }

  /** The most units this member owns at once ({@link Integer#MAX_VALUE} = no limit). */
  public int capacity() {
    return settings.capacity();
  }

  /**
   * What this member publishes with its registration and every affinity change: the current affinity, the capacity
   * and the attributes ({@link Builder#version}, {@link Builder#zone}, {@link Builder#attribute}).
   */
  public MemberMeta meta() {
    return meta.current();
  }

  /**
   * Sets the affinity (atomically) and publishes it with {@link io.allot.store.Membership#update}, together with the
   * capacity and attributes. Lowering it stops nothing by itself: the distributor recomputes the table and the units
   * that move go through the normal handoff. A value above 0 also ends a {@link #flush} (claiming resumes).
   *
   * @return the previous affinity
   * @throws IllegalArgumentException if {@code affinity < 0}
   */
  public int setAffinity(int affinity) {
    if (affinity < 0) {
      throw new IllegalArgumentException("affinity must be >= 0 but was " + affinity);
    }
    int previous = meta.set(affinity);
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
    int next = meta.update(a -> {
      long r = (long) a + delta;
      if (r < 0 || r > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("affinity " + a + " + " + delta + " is out of range [0, "
            + Integer.MAX_VALUE + "]");
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
    if (events.onEventThread()) {
      throw new IllegalStateException("flush() must not be called from a listener callback: it waits for stops that"
          + " are delivered on that very thread");
    }
    lock.run(() -> units.draining(true));
    meta.set(0);
    wake();
    long deadline = lease.now() + timeout.toNanos();
    lock.lock();
    try {
      while (!units.isEmpty()) {
        long left = deadline - lease.now();
        if (left <= 0) {
          return false;
        }
        lock.awaitNanos(left);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return units.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    String id = memberId;
    return "Divider[pool=" + settings.pool() + ", member=" + (id == null ? settings.host() + ":" + settings.port() : id)
        + ", " + phase.get() + "]";
  }

  private void affinityChanged(int value) {
    if (value > 0) {
      lock.run(() -> units.draining(false));
    }
    wake();
  }

  private boolean running() {
    return phase.get() == Phase.RUNNING;
  }

  /** The lease is renewed while running and while leaving (the shutdown grace needs it), until the shutdown stops it. */
  private boolean renewing() {
    Phase p = phase.get();
    return p == Phase.RUNNING || p == Phase.CANCELLING;
  }

  private void wake() {
    loop.wake();
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
    /** Null: detected at build() ({@link AdvertisedHost}). */
    private String host;
    private String bindAddress;
    private int port;
    private Integer appServerPort;
    private int affinity = 1;
    private int capacity = Integer.MAX_VALUE;
    private java.util.function.ToIntFunction<String> unitCost = u -> 1;
    private final Map<String, String> attributes = new LinkedHashMap<>();
    private Duration leaseTtl = DEFAULT_LEASE_TTL;
    private Duration renewEvery = DEFAULT_RENEW_EVERY;
    private Duration fenceMargin = DEFAULT_FENCE_MARGIN;
    private Duration syncInterval = DEFAULT_SYNC_INTERVAL;
    private int maxConcurrentMoves = 32;
    private int claimBatch = 64;
    private Duration releaseHold = Duration.ofSeconds(30);
    private Duration shutdownGrace = Duration.ofSeconds(5);
    private Duration ownershipCheck; // null: Settings.OWN_CHECK_SYNCS sync intervals
    private final List<UnitListener> listeners = new ArrayList<>();
    private DividerBackend backend = DividerBackend.system();
    private io.micrometer.core.instrument.MeterRegistry meterRegistry;

    /** The store this builder was made with (for companions that build on the divider, such as allot-tasks' {@code TaskRunner}). */
    public Store store() {
      return store;
    }

    /** The pool set so far (null if none). */
    public String poolName() {
      return pool;
    }

    private Builder(Store store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /** The pool: its services list key (the distributor's pool). Required; any non-empty name. */
    public Builder pool(String pool) {
      this.pool = pool;
      return this;
    }

    /** The distribution hash key; default {@value Divider#DEFAULT_DISTRIBUTION}. */
    public Builder distribution(String distribution) {
      this.distribution = distribution;
      return this;
    }

    /**
     * The port the divider's own ping server listens on; 0 (the default) picks a free one at start. Part of the
     * member id. Not with {@link #pingsOnAppServer(int)}.
     */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /**
     * Answer the pings on the application's own gRPC server, listening on {@code appServerPort}, instead of a port
     * of the divider's own: the member id becomes {@code host:appServerPort}, the divider binds nothing, and the
     * application must add {@link Divider#pingServices()} to that server's builder before it is built, then start
     * the divider with {@link Divider#start(io.grpc.Server)}, which checks that it did (0: the port is taken from that
     * server). Not with {@link #port(int)} or {@link #bindAddress}.
     */
    public Builder pingsOnAppServer(int appServerPort) {
      this.appServerPort = appServerPort;
      return this;
    }

    /**
     * The host the distributor reaches this member at, the first part of the member id. Default: an address other
     * hosts can reach, found at {@link #build()}: the first up, non-loopback, non-virtual interface's site-local IPv4
     * address (else another IPv4 address, else an IPv6 one; host-local bridges such as docker0 last), else
     * {@link java.net.InetAddress#getLocalHost()}, else 127.0.0.1 with a warning. Set it where that guess is wrong
     * (several networks, NAT), and to 127.0.0.1 for tests and demos on one machine. Two processes must never advertise
     * the same {@code host:port} in one pool.
     */
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

    /** The software version published with the member (attribute {@value MemberMeta#VERSION}); routing reads it. */
    public Builder version(String version) {
      attributes.put(MemberMeta.VERSION, version);
      return this;
    }

    /** The zone published with the member (attribute {@value MemberMeta#ZONE}). */
    public Builder zone(String zone) {
      attributes.put(MemberMeta.ZONE, zone);
      return this;
    }

    /**
     * An attribute published with the member (names: 1–64 characters of {@code [A-Za-z0-9._-]}; values: at most 256
     * characters; at most 32 attributes). Kept across affinity changes.
     */
    public Builder attribute(String name, String value) {
      attributes.put(name, value);
      return this;
    }

    /**
     * The lease TTL in store time, default 1 s: a member killed with -9 loses its units this long after its last
     * renewal plus the store's clock margin (the distributor reacts to the expiry), so it is the main term of failover
     * time. 1 ms to 1 day.
     */
    public Builder leaseTtl(Duration leaseTtl) {
      this.leaseTtl = leaseTtl;
      return this;
    }

    /**
     * Time between two lease renewals, default 100 ms: eight tries fit before the fence with the default lease and
     * margin (a renewal stall of 700 ms is tolerated); each member renews this often, so a pool of many members on
     * PostgreSQL may want it longer (with a longer lease). At most 1 day.
     */
    public Builder renewEvery(Duration renewEvery) {
      this.renewEvery = renewEvery;
      return this;
    }

    /**
     * How long before the lease can expire the member fences itself, default 200 ms: the time the application has to
     * stop a unit after {@link StopReason#LEASE_LOST} before another member may claim it (plus the store's clock
     * margin, 200 ms by default). At most 1 day.
     */
    public Builder fenceMargin(Duration fenceMargin) {
      this.fenceMargin = fenceMargin;
      return this;
    }

    /**
     * Time between two reconciliations without a notification, default 500 ms (notifications are the fast path); at
     * most 1 day.
     */
    public Builder syncInterval(Duration syncInterval) {
      this.syncInterval = syncInterval;
      return this;
    }

    /** Unconfirmed {@link StopReason#REASSIGNED} stops at a time (a rebalance stops units in waves); default 32. */
    public Builder maxConcurrentMoves(int maxConcurrentMoves) {
      this.maxConcurrentMoves = maxConcurrentMoves;
      return this;
    }

    /**
     * What a unit costs against {@link #capacity(int)}: by default every unit costs 1 (capacity = the most units at
     * once). Long-running tasks have a cost each ({@code TaskRunner} supplies it from their specs): the units owned at
     * once, also those still stopping, then never cost more than the capacity in sum. Called on the divider's thread;
     * keep it cheap (a map lookup).
     */
    public Builder unitCost(java.util.function.ToIntFunction<String> unitCost) {
      this.unitCost = Objects.requireNonNull(unitCost, "unitCost");
      return this;
    }

    /**
     * Claims per reconciliation round, in one store round trip; default 64. A failover of thousands of units costs one
     * round trip per batch, so larger batches start them sooner (stops stay paced by {@link #maxConcurrentMoves}).
     */
    public Builder claimBatch(int claimBatch) {
      this.claimBatch = claimBatch;
      return this;
    }

    /**
     * How long a unit given up with {@link Divider#release(String, long)} is held: recorded in the store with the
     * release, so the distributor gives it to another member meanwhile, and not claimed again by this member while it
     * stays in its target; default 30 s, 0 to 30 days.
     */
    public Builder releaseHold(Duration releaseHold) {
      this.releaseHold = releaseHold;
      return this;
    }

    /** How long {@link Divider#cancel()} waits for SHUTDOWN stops to be confirmed; default 5 s, 0 to 1 day. */
    public Builder shutdownGrace(Duration shutdownGrace) {
      this.shutdownGrace = shutdownGrace;
      return this;
    }

    /**
     * How often the member reads the pool's owners to release a unit its session owns without knowing: a push
     * handoff's grant of a unit it no longer wants whose announcement was lost (a rare pair of events). The read
     * costs O(units of the pool); default 20 sync intervals (10 s at the defaults).
     */
    public Builder ownershipCheck(Duration ownershipCheck) {
      this.ownershipCheck = ownershipCheck;
      return this;
    }

    /** Adds a listener (may be called several times; called in this order). */
    public Builder listener(UnitListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Where the member's meters go ({@code allot.worker.*}, tagged {@code pool} and {@code member}, bound at
     * {@link Divider#start()}); none by default. Companions built on this builder (allot-tasks' {@code TaskRunner})
     * put theirs there too.
     */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry meterRegistry) {
      this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
      return this;
    }

    /** The registry set with {@link #meterRegistry}, or null. */
    public io.micrometer.core.instrument.MeterRegistry meterRegistry() {
      return meterRegistry;
    }

    /**
     * The clock, threads and locks the divider runs on; default {@link DividerBackend#system()}, which every
     * application wants. A simulator injects virtual ones here (see {@link DividerBackend}).
     */
    public Builder backend(DividerBackend backend) {
      this.backend = Objects.requireNonNull(backend, "backend");
      return this;
    }

    /**
     * Checks the settings and builds the divider (nothing runs before {@link Divider#start()}).
     *
     * @throws IllegalArgumentException naming the setting that is wrong (a duration outside its bounds too: see
     *     {@link io.allot.store.Durations})
     */
    public Divider build() {
      if (appServerPort != null && port != 0) {
        throw new IllegalArgumentException("pingsOnAppServer(" + appServerPort + ") and port(" + port + ") exclude each"
            + " other: the first answers pings on the application's server, the second on a port of the divider's own");
      }
      Settings s = new Settings(pool, distribution, host != null ? host : AdvertisedHost.detect(), bindAddress,
          appServerPort != null ? appServerPort : port, appServerPort != null, affinity, capacity, attributes,
          leaseTtl, renewEvery, fenceMargin, syncInterval, maxConcurrentMoves, claimBatch, releaseHold, shutdownGrace,
          ownershipCheck != null ? ownershipCheck : Settings.defaultOwnershipCheck(syncInterval));
      return new Divider(store, s, listeners, unitCost, backend, meterRegistry);
    }
  }
}
