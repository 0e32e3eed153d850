package io.allot.worker;

import io.allot.core.assign.SeedLayout;
import io.allot.sim.Hole;
import io.allot.sim.Network;
import io.allot.sim.Sim;
import io.allot.sim.SimConfig;
import io.allot.sim.SimStore;
import io.allot.sim.SimViolation;
import io.allot.sim.Trace;
import io.allot.store.MemberConflictException;
import io.allot.store.MemberMeta;
import io.allot.store.Ownership;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.UnitOwner;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * One member process of the simulator: what {@code MemberSession}, {@code ReconcileLoop}, {@code EventDispatcher} and
 * {@code MemberShutdown} do, with their threads replaced by events of the {@link Sim} and every store call split into
 * a request, its application at the store and its answer ({@link Network}). The decisions are the SDK's own: the
 * lease arithmetic is a real {@link LeaseDeadline} on the virtual clock, the unit state machine a real {@link
 * Reconciler}; this class is the glue, written after the SDK's and kept in step with it by hand (it lives in the SDK's
 * package to reach those two package-private classes).
 *
 * <ul>
 *   <li><b>lease thread</b>: a tick every {@code renewEvery} (fixed rate: a tick due while a call is in flight runs
 *   when it returns); renews, or after a fence registers again once {@link LeaseDeadline#mayRegister()};</li>
 *   <li><b>watchdog</b>: fences when the deadline passed, checked at the deadline plus up to one watchdog period;</li>
 *   <li><b>loop</b>: a round every {@code syncInterval}, at once on a wake-up (table change, awaited release, the
 *   application's calls) or when the last round was cut short by the claim limit; it reads the target only after a
 *   change hint or once the last read is {@code syncInterval} old;</li>
 *   <li><b>releaser</b> ({@code Releaser}): releases the confirmed units as soon as a confirmation comes, all of them
 *   (one batch in the SDK, independent calls sent at once here: each release is atomic on its own either way), then
 *   wakes the loop; it, the loop's rounds and the shutdown release one at a time (the lock {@code releasing}), and a
 *   round skips releasing while another holds it;</li>
 *   <li><b>dispatcher</b>: events go to the {@link Listener} in order, a start only while its generation is current
 *   and the lease valid ({@link LeaseDeadline#startMayRun(long)});</li>
 *   <li><b>shutdown</b> ({@link #cancel()}): the steps of {@code MemberShutdown}.</li>
 * </ul>
 * While the process is paused none of those run (their events wait); when it is killed they are dropped. The
 * application's handlers are not paused: they are the application's, modelled by the listener, and they learn that
 * the lease ran out at the deadline itself ({@link Listener#onLeaseInvalid()}), as {@code UnitRunner}'s handlers do by
 * polling {@code leaseValid()}.
 *
 * <p>Not thread-safe (confined to the simulation's thread). Fields are grouped by the real thread they stand for.
 */
public final class SimMember implements Network.Subscriber {

  /** The application: gets the events in order, and hears when the lease is no longer valid. */
  public interface Listener {
    void onStart(UnitStart start);

    void onStop(UnitStop stop);

    /** The lease deadline passed, or the member fenced itself or left: every handler must stop now. */
    void onLeaseInvalid();
  }

  /** The checker's view of the store's grants (invariant 2 at the store). */
  public interface Grants {
    void granted(String unit, long session, long token);
  }

  /** Where the process is in its life. */
  public enum Phase {
    /** {@code start()} runs: registering, waiting out a conflict. */
    STARTING,
    /** Started. */
    RUNNING,
    /** {@code cancel()} runs. */
    CANCELLING,
    /** Cancelled: the process exited. */
    LEFT,
    /** Killed (kill -9). */
    KILLED,
    /** {@code start()} failed: the id stayed live under another session, or the store refused. */
    FAILED
  }

  /** The pool (services list) of the simulation. */
  public static final String POOL = "sim-pool";
  /** The distribution table of the simulation. */
  public static final String TABLE = "sim-table";

  // ---- shared, set once
  private final Sim sim;
  private final Network net;
  private final SimStore store;
  private final Trace trace;
  private final Grants grants;
  private final String id;
  private final String name;
  private final long ttlNanos;
  private final long renewNanos;
  private final long syncNanos;
  private final long graceNanos;
  private final long clockMarginNanos;
  private final long watchdogPeriodNanos;
  private final Settings settings;
  private final Duration leaseTtl;
  private final Duration releaseHold;
  private final boolean deregisterAtOnceAfterFence;
  private final boolean confirmByUnitOnly;
  /** Hole {@link Hole#IN_DOUBT_AFTER_FENCE}: settle claims in doubt even after a fence. */
  private final boolean settleAfterFence;
  private final LeaseDeadline lease;
  private final Reconciler units;
  private final Sim.Actor app;
  private Listener listener;
  private Runnable onFenced = () -> { };

  // ---- the process (the state lock's share in the SDK)
  private Phase phase = Phase.STARTING;
  private long pausedUntil = Long.MIN_VALUE;
  private long linkDownUntil = Long.MIN_VALUE;
  private long session;
  private long lastSession;
  private int affinity = 1;
  private long metaVersion;
  private long publishedVersion = -1;

  // ---- lease thread
  private long giveUpStartAt;
  private boolean renewing = true;
  private boolean leaseBusy;
  private boolean tickOwed;
  private long nextTickAt;

  // ---- watchdog, and the application's view of the deadline
  private boolean watchdogOn;
  private Sim.Event watchdogCheck;
  private Sim.Event deadlineCheck;

  // ---- loop thread
  private boolean loopOn;
  private boolean loopBusy;
  private boolean wakeToken;
  private Sim.Event nextRound;
  private boolean targetChanged = true;
  private List<String> lastTarget;
  private long lastTargetReadAt;
  private final Set<String> inDoubt = new LinkedHashSet<>();

  // ---- releaser thread, and the lock ("releasing") that it, the loop and the shutdown take to release
  private boolean releaserOn;
  private boolean releaserBusy;
  private boolean releaseRequested;
  private boolean releasing;
  private final ArrayDeque<Runnable> releaseWaiters = new ArrayDeque<>();

  // ---- dispatcher
  private long lastDeliveryAt;

  // ---- cancel()
  private boolean awaitingLoopEnd;
  private Sim.Event shutdownWait;
  private long graceEndAt;

  /**
   * @param id          the member id
   * @param incarnation the process's number for this id (1 for the first)
   * @param grants      told of every grant the store makes, at the store
   */
  public SimMember(Sim sim, Network net, SimStore store, Trace trace, SimConfig config, String id, int incarnation,
      Grants grants) {
    this.sim = sim;
    this.net = net;
    this.store = store;
    this.trace = trace;
    this.grants = grants;
    this.id = id;
    this.name = id + "#" + incarnation;
    // the SDK's own settings record, checked as the builder checks them; its derived values are the SDK's
    this.settings = new Settings(POOL, TABLE, "127.0.0.1", null, 7001, false, 1, Integer.MAX_VALUE, Map.of(),
        config.leaseTtl(), config.renewEvery(), config.fenceMargin(), config.syncInterval(), config.maxMoves(),
        config.maxMoves(), config.releaseHold(), config.shutdownGrace());
    this.leaseTtl = settings.leaseTtl();
    this.releaseHold = settings.releaseHold();
    this.ttlNanos = settings.ttlNanos();
    this.renewNanos = settings.renewNanos();
    this.syncNanos = settings.syncNanos();
    this.graceNanos = settings.graceNanos();
    this.clockMarginNanos = store.store().safety().clockMargin().toNanos();
    this.watchdogPeriodNanos = settings.watchdogPeriodNanos();
    this.deregisterAtOnceAfterFence = config.hole() == Hole.CANCEL_AFTER_FENCE;
    this.confirmByUnitOnly = config.hole() == Hole.CONFIRM_BY_UNIT;
    this.settleAfterFence = config.hole() == Hole.IN_DOUBT_AFTER_FENCE;
    // as Divider builds them
    this.lease = new LeaseDeadline(ttlNanos, settings.marginNanos(), clockMarginNanos, sim::now);
    this.units = new Reconciler(settings.capacity(), settings.maxConcurrentMoves(), settings.holdNanos(),
        syncNanos / 2);
    SimMember self = this;
    this.app = new Sim.Actor() {
      @Override
      public boolean gone() {
        return self.gone();
      }

      @Override
      public long pausedUntil() {
        return Long.MIN_VALUE; // the application's handlers are not paused with the SDK (see the class comment)
      }
    };
  }

  // =====================================================================================================
  // identity and the simulator's controls

  /** The member id. */
  public String id() {
    return id;
  }

  /** {@code id#incarnation}, for the trace. */
  @Override
  public String name() {
    return name;
  }

  public Phase phase() {
    return phase;
  }

  /** The application's actor: its events are dropped when the process dies, never held back by a pause. */
  public Sim.Actor appActor() {
    return app;
  }

  public void listener(Listener listener) {
    this.listener = listener;
  }

  /** Called after every self-fence (the simulator may cancel the member then, as an {@code onLeaseLost} would). */
  public void onFenced(Runnable onFenced) {
    this.onFenced = onFenced;
  }

  @Override
  public boolean gone() {
    return phase == Phase.KILLED || phase == Phase.FAILED;
  }

  @Override
  public long pausedUntil() {
    return pausedUntil;
  }

  @Override
  public boolean linkDown() {
    return sim.now() < linkDownUntil;
  }

  /** True between start and cancel (the SDK's {@code running()}, which start already counts as). */
  public boolean running() {
    return phase == Phase.STARTING || phase == Phase.RUNNING;
  }

  /** Pauses the process (all of its SDK threads) for {@code nanos}. */
  public void pause(long nanos) {
    pausedUntil = Math.max(pausedUntil, sim.now() + nanos);
  }

  /** Cuts the process's link to the store for {@code nanos}. */
  public void cutLink(long nanos) {
    linkDownUntil = Math.max(linkDownUntil, sim.now() + nanos);
  }

  /** Ends any link cut now (the end of the faults). */
  public void healLink() {
    linkDownUntil = Long.MIN_VALUE;
  }

  /** kill -9: nothing of this process runs any more. */
  public void kill() {
    phase = Phase.KILLED;
    trace.add(name, "killed");
  }

  /** True while registered and the lease deadline has not passed ({@code Divider.leaseValid()}). */
  public boolean leaseValid() {
    return lease.valid();
  }

  /** The lease generation ({@code Divider.generation()}). */
  public long generation() {
    return lease.generation();
  }

  /** The session while the lease is held. */
  public OptionalLong session() {
    return lease.held() ? OptionalLong.of(session) : OptionalLong.empty();
  }

  // =====================================================================================================
  // Divider.start(): register, waiting out a conflict; then the threads

  /** {@code Divider.start()}. */
  public void start() {
    net.subscribe(this);
    trace.add(name, "starts");
    giveUpStartAt = sim.now() + ttlNanos + clockMarginNanos + renewNanos;
    registerAtStart();
  }

  private void registerAtStart() {
    long sent = sim.now();
    long version = metaVersion;
    MemberMeta meta = meta();
    call("register", s -> s.membership(POOL).register(id, meta, leaseTtl), this::showSession, (s, err) -> {
      if (phase != Phase.STARTING) {
        return;
      }
      if (err == null) {
        registered(sent, s, version);
        startThreads();
      } else if (err instanceof MemberConflictException e) {
        sim.count("registration conflict");
        long left = giveUpStartAt - sim.now();
        if (left <= 0) {
          phase = Phase.FAILED;
          trace.add(name, "start failed: the id is still live under another session");
          return;
        }
        long liveNanos = Math.max(0, e.liveUntilMillis() - store.store().clock().timeMillis()) * 1_000_000L;
        sim.after(Math.min(left, Math.max(liveNanos, 1_000_000L)), this, this::registerAtStart);
      } else if (err instanceof StoreUnavailableException) {
        startThreads(); // the lease thread registers as soon as it can
      } else {
        phase = Phase.FAILED;
        trace.add(name, "start failed: " + err);
      }
    });
  }

  private void startThreads() {
    phase = Phase.RUNNING;
    nextTickAt = sim.now() + renewNanos;
    sim.at(nextTickAt, this, this::tick);
    watchdogOn = true;
    armWatchdog();
    loopOn = true;
    releaserOn = true;
    nextRound = sim.after(0, this, () -> runRound(false));
  }

  // =====================================================================================================
  // lease thread (MemberSession)

  /** The locked part of {@code MemberSession.register()}: a new session. */
  private void registered(long sent, long s, long version) {
    if (!running()) { // cancel() ran meanwhile and saw no session
      call("deregister", st -> {
        st.membership(POOL).deregister(id, s);
        net.announceMembers(id);
        return null;
      }, null, (v, err) -> { });
      return;
    }
    session = s;
    lastSession = s;
    lease.registered(sent, sim.now());
    publishedVersion = Math.max(publishedVersion, version);
    trace.add(name, "registered s=" + store.rel(s) + " deadline=" + Trace.time(lease.fenceAtNanos()));
    armWatchdog();
    armDeadline();
    signal();
    wake();
  }

  private void tick() {
    if (!renewing || !(running() || phase == Phase.CANCELLING)) { // the SDK renews during the shutdown grace too
      return;
    }
    nextTickAt += renewNanos;
    sim.at(nextTickAt, this, this::tick);
    leaseTick();
  }

  private void leaseTick() {
    if (leaseBusy) {
      tickOwed = true;
      return;
    }
    if (!lease.held()) {
      if (lease.mayRegister() && running()) {
        registerAgain();
      }
      return;
    }
    long generation = lease.generation();
    long s = session;
    long sent = sim.now();
    leaseBusy = true;
    call("renew s=" + store.rel(s), st -> st.membership(POOL).renew(id, s, leaseTtl), String::valueOf, (ok, err) -> {
      leaseBusy = false;
      if (!renewing) {
        return; // the lease thread was stopped (cancel): its last answer is not used
      }
      if (err == null && generation == lease.generation()) {
        if (ok) {
          lease.renewed(sent, sim.now());
          armWatchdog();
          armDeadline();
        } else {
          fence("the store refused to renew session " + store.rel(s));
        }
      }
      leaseCallDone();
    });
  }

  private void registerAgain() {
    if (!running()) {
      return;
    }
    long sent = sim.now();
    long version = metaVersion;
    MemberMeta meta = meta();
    leaseBusy = true;
    call("register", st -> st.membership(POOL).register(id, meta, leaseTtl), this::showSession, (s, err) -> {
      leaseBusy = false;
      if (!renewing) {
        return;
      }
      if (err == null) {
        registered(sent, s, version);
      }
      leaseCallDone(); // a conflict or an unreachable store: retried next tick
    });
  }

  private void leaseCallDone() {
    if (tickOwed && renewing && (running() || phase == Phase.CANCELLING)) {
      tickOwed = false;
      leaseTick();
    }
  }

  // =====================================================================================================
  // watchdog and fencing

  /** Makes sure a watchdog check comes at the deadline (plus up to one watchdog period). */
  private void armWatchdog() {
    if (!watchdogOn || !lease.held()) {
      return;
    }
    long due = lease.fenceAtNanos() + sim.uniform(0, watchdogPeriodNanos);
    if (watchdogCheck != null && !watchdogCheck.cancelled() && watchdogCheck.at() <= due) {
      return; // it re-arms itself when it finds the deadline moved
    }
    if (watchdogCheck != null) {
      watchdogCheck.cancel();
    }
    watchdogCheck = sim.at(due, this, () -> {
      watchdogCheck = null;
      if (watchdogOn && !fenceIfRanOut("watchdog")) {
        armWatchdog();
      }
    });
  }

  /** The application's handlers notice the deadline the moment it passes (not held back by a pause). */
  private void armDeadline() {
    if (!lease.held()) {
      return;
    }
    long due = lease.fenceAtNanos();
    if (deadlineCheck != null && !deadlineCheck.cancelled() && deadlineCheck.at() <= due) {
      return;
    }
    if (deadlineCheck != null) {
      deadlineCheck.cancel();
    }
    deadlineCheck = sim.at(due, app, () -> {
      deadlineCheck = null;
      if (lease.held() && !lease.valid()) {
        trace.add(name, "deadline passed");
        listener.onLeaseInvalid();
      } else {
        armDeadline();
      }
    });
  }

  /** {@code MemberSession.fenceIfRanOut}: true if the lease is not (or no longer) held. */
  private boolean fenceIfRanOut(String seenBy) {
    if (lease.ranOut()) {
      fence("no successful renewal for " + lease.millisSinceLastRenewSent() + " ms (" + seenBy + ")");
    }
    return !lease.held();
  }

  /** {@code MemberSession.fenceLocked}. */
  private void fence(String reason) {
    lease.fence((sim.now() - Sim.EPOCH) / 1_000_000L);
    sim.count("fence");
    List<UnitStop> stopped = units.forgetAll();
    stopped.forEach(this::emit);
    signal();
    trace.add(name, "fenced: " + reason + "; " + stopped.size() + " stopped; old lease ends by "
        + Trace.time(lease.oldLeaseEndNanos()));
    listener.onLeaseInvalid();
    onFenced.run();
  }

  // =====================================================================================================
  // dispatcher (EventDispatcher)

  private void emit(UnitEvent e) {
    long generation = lease.generation();
    long delay = sim.chance(0.01) ? sim.uniform(5_000_000L, 100_000_000L) : sim.uniform(10_000L, 500_000L);
    lastDeliveryAt = Math.max(sim.now(), lastDeliveryAt) + delay;
    sim.at(lastDeliveryAt, this, () -> deliver(e, generation));
  }

  private void deliver(UnitEvent e, long generation) {
    if (e instanceof UnitStart s) {
      if (!lease.startMayRun(generation)) {
        trace.add(name, "start of " + s.unit() + "#" + store.rel(s.token()) + " withheld");
        sim.count("start withheld");
        return;
      }
      if (!lease.valid()) {
        throw new SimViolation("4 valid-lease", name + " delivers the start of " + s.unit() + " with an invalid lease");
      }
      trace.add(name, "onStart " + s.unit() + "#" + store.rel(s.token()));
      listener.onStart(s);
    } else {
      UnitStop s = (UnitStop) e;
      trace.add(name, "onStop " + s.unit() + "#" + store.rel(s.token()) + " " + s.reason());
      listener.onStop(s);
    }
  }

  // =====================================================================================================
  // the application's calls (Divider)

  /** {@code Divider.confirmStop(unit, token)}; with {@link Hole#CONFIRM_BY_UNIT}, whatever run of the unit is held. */
  public boolean confirmStop(String unit, long token) {
    Long held = units.assigned().get(unit);
    if (held != null && held != token) {
      sim.count("confirmation of an earlier run");
    }
    long t = confirmByUnitOnly && held != null ? held : token;
    boolean confirmed = units.confirmStop(unit, t);
    trace.add(name, "confirmStop " + unit + "#" + store.rel(token) + " -> " + confirmed);
    if (confirmed) {
      signal();
      requestRelease(); // the releaser wakes the loop once released: a move counts until its release
    }
    return confirmed;
  }

  /** {@code Divider.release(unit, token)}; with {@link Hole#CONFIRM_BY_UNIT}, whatever run of the unit is held. */
  public boolean release(String unit, long token) {
    Long held = units.assigned().get(unit);
    if (held != null && held != token) {
      sim.count("release of an earlier run");
    }
    long t = confirmByUnitOnly && held != null ? held : token;
    Reconciler.Released r = units.release(unit, t, sim.now());
    trace.add(name, "release " + unit + "#" + store.rel(token) + " -> " + r);
    if (r == Reconciler.Released.WAS_RUNNING) {
      emit(new UnitStop(unit, t, StopReason.RELEASED));
    }
    if (r == Reconciler.Released.NOT_OWNED) {
      return false;
    }
    signal();
    wake();
    return true;
  }

  /** The affinity ({@code Divider.affinity()}). */
  public int affinity() {
    return affinity;
  }

  /** {@code Divider.setAffinity(affinity)}: published by the next round. */
  public void setAffinity(int value) {
    affinity = value;
    metaVersion++;
    if (value > 0) {
      units.draining(false);
    }
    trace.add(name, "affinity " + value);
    wake();
  }

  private MemberMeta meta() {
    return settings.meta().withAffinity(affinity);
  }

  // =====================================================================================================
  // announcements

  @Override
  public void onTable() {
    targetChanged = true;
    wake();
  }

  @Override
  public void onRelease(String unit) {
    if (units.releaseAnnounced(unit)) {
      wake();
    }
  }

  // =====================================================================================================
  // reconciliation loop (ReconcileLoop)

  /** {@code ReconcileLoop.wake()}: a round at once, or right after the running one. */
  private void wake() {
    if (!loopOn) {
      return;
    }
    if (loopBusy) {
      wakeToken = true;
      return;
    }
    if (nextRound != null) {
      nextRound.cancel();
    }
    nextRound = sim.after(0, this, () -> runRound(false));
  }

  private void runRound(boolean continuing) {
    nextRound = null;
    if (!loopOn || !running()) {
      loopEnded();
      return;
    }
    loopBusy = true;
    round(continuing);
  }

  /** The end of a round: the next one at once if more claims are due or a wake-up came, else after the wait. */
  private void endRound(boolean again) {
    loopBusy = false;
    if (!loopOn || !running()) {
      loopEnded();
      return;
    }
    if (again) {
      nextRound = sim.after(0, this, () -> runRound(true));
    } else if (wakeToken) {
      wakeToken = false;
      nextRound = sim.after(0, this, () -> runRound(false));
    } else {
      nextRound = sim.after(units.nextWaitNanos(sim.now(), syncNanos), this, () -> runRound(false));
    }
  }

  private record Term(long session, long generation) {}

  private void round(boolean continuing) {
    if (fenceIfRanOut("the reconciliation loop")) {
      endRound(false);
      return;
    }
    Term term = new Term(session, lease.generation());
    publishMeta(term, () -> releaseConfirmedUnlessBusy(() -> readTarget(continuing, target -> plan(term, target)),
        () -> endRound(false)));
  }

  private void publishMeta(Term term, Runnable next) {
    long version = metaVersion;
    if (version <= publishedVersion) {
      next.run();
      return;
    }
    MemberMeta meta = meta();
    call("update affinity=" + meta.affinity(), st -> {
      boolean ok = st.membership(POOL).update(id, term.session(), meta);
      if (ok) {
        net.announceMembers(id);
      }
      return ok;
    }, String::valueOf, (ok, err) -> {
      if (err != null) {
        endRound(false);
        return;
      }
      if (ok) {
        publishedVersion = Math.max(publishedVersion, version);
      }
      next.run();
    });
  }

  /**
   * {@code Releaser.releaseConfirmed} (called by the releaser, the rounds and the shutdown): takes the lock
   * {@code releasing}, releases every confirmed unit in the store ({@link #releaseAll}), then hands the lock on; a
   * failed call ends it ({@code onFail}).
   */
  private void releaseConfirmed(Runnable next, Runnable onFail) {
    withReleasing(() -> releaseAll(units.confirmed(), () -> {
      unlockReleasing();
      next.run();
    }, () -> {
      unlockReleasing();
      onFail.run();
    }));
  }

  /**
   * {@code Releaser.releaseConfirmed}: one unit with one call; several in parallel (every call sent at once), going on
   * when every answer came, failing if one failed (the failed units stay confirmed).
   */
  private void releaseAll(List<Reconciler.Owned> confirmed, Runnable next, Runnable onFail) {
    if (confirmed.size() <= 1) {
      releaseEach(new ArrayList<>(confirmed), 0, next, onFail);
      return;
    }
    int[] left = {confirmed.size()};
    boolean[] failed = {false};
    for (Reconciler.Owned o : confirmed) {
      releaseOne(o, ok -> {
        failed[0] |= !ok;
        if (--left[0] == 0) {
          (failed[0] ? onFail : next).run();
        }
      });
    }
  }

  /** One release call; {@code done} gets false if the call failed. */
  private void releaseOne(Reconciler.Owned o, java.util.function.Consumer<Boolean> done) {
    boolean hold = o.hold;
    call("release " + o.unit + "#" + store.rel(o.token) + (hold ? " hold" : ""),
        st -> releaseAt(st, o.unit, o.token, hold ? releaseHold : Duration.ZERO), String::valueOf, (ok, err) -> {
          if (err != null) {
            done.accept(false);
            return;
          }
          if (units.released(o)) {
            signal();
          }
          done.accept(true);
        });
  }

  /**
   * {@code Releaser.releaseConfirmedUnlessBusy} (the rounds): {@link #releaseConfirmed} if nobody holds the lock
   * {@code releasing}, else straight on to {@code next} (the holder releases, and a later confirmation asked the
   * releaser for another pass).
   */
  private void releaseConfirmedUnlessBusy(Runnable next, Runnable onFail) {
    if (releasing) {
      next.run();
      return;
    }
    releaseConfirmed(next, onFail);
  }

  /** Takes the lock {@code releasing} (waiting behind its holder), then runs {@code then}. */
  private void withReleasing(Runnable then) {
    if (releasing) {
      releaseWaiters.add(then);
      return;
    }
    releasing = true;
    then.run();
  }

  /** Hands the lock {@code releasing} to the next waiter, if any. */
  private void unlockReleasing() {
    Runnable next = releaseWaiters.poll();
    if (next == null) {
      releasing = false;
      return;
    }
    next.run();
  }

  /** {@code ReconcileLoop.confirmed()}: the releaser releases the confirmed units now (a queue of one request). */
  private void requestRelease() {
    if (!releaserOn) {
      return;
    }
    if (releaserBusy) {
      releaseRequested = true;
      return;
    }
    releaserBusy = true;
    sim.after(0, this, () -> releaseConfirmed(() -> {
      wake(); // the released moves free their slots (the SDK wakes only when it released some: a round more here)
      releaserDone();
    }, () -> {
      wake(); // the round retries
      releaserDone();
    }));
  }

  private void releaserDone() {
    releaserBusy = false;
    if (releaseRequested) {
      releaseRequested = false;
      requestRelease();
    }
  }

  private void releaseEach(List<Reconciler.Owned> confirmed, int i, Runnable next, Runnable onFail) {
    if (i == confirmed.size()) {
      next.run();
      return;
    }
    releaseOne(confirmed.get(i), ok -> {
      if (ok) {
        releaseEach(confirmed, i + 1, next, onFail);
      } else {
        onFail.run();
      }
    });
  }

  /** A release at the store, announced if it released. */
  private boolean releaseAt(Store st, String unit, long token, Duration hold) {
    Ownership own = st.ownership(POOL);
    boolean ok = hold.isZero() ? own.release(unit, id, token) : own.release(unit, id, token, hold);
    if (ok) {
      net.announceRelease(unit);
    }
    return ok;
  }

  /** As {@code ReconcileLoop.round}: the last target unless a hint came, or it is {@code syncInterval} old. */
  private void readTarget(boolean continuing, java.util.function.Consumer<List<String>> next) {
    boolean changed = targetChanged;
    targetChanged = false;
    long now = sim.now();
    if (!changed && lastTarget != null && (continuing || now - lastTargetReadAt < syncNanos)) {
      next.accept(lastTarget);
      return;
    }
    call("read target", st -> st.tables().read(TABLE, id).orElse(""), v -> "[" + v + "]", (v, err) -> {
      if (err != null) {
        targetChanged = true;
        endRound(false);
        return;
      }
      lastTarget = SeedLayout.split(v.isEmpty() ? null : v);
      lastTargetReadAt = now;
      next.accept(lastTarget);
    });
  }

  private void plan(Term term, List<String> target) {
    if (term.generation() != lease.generation() || !running()) {
      endRound(false);
      return;
    }
    Reconciler.Plan plan = units.plan(target, lease.valid(), sim.now());
    plan.stops().forEach(this::emit);
    if (!plan.stops().isEmpty() || !plan.claims().isEmpty()) {
      trace.add(name, "plan stops=" + plan.stops().stream().map(UnitStop::unit).toList() + " claims="
          + plan.claims());
    }
    if (plan.claims().isEmpty()) {
      settleInDoubt(term, () -> endRound(plan.again()));
      return;
    }
    if (!lease.valid()) {
      throw new SimViolation("4 valid-lease", name + " claims " + plan.claims() + " with an invalid lease");
    }
    List<String> claims = plan.claims();
    long s = term.session();
    call("claimAll " + claims, st -> {
      Map<String, Long> tokens = st.ownership(POOL).claimAll(claims, id, s);
      tokens.forEach((u, t) -> grants.granted(u, s, t));
      return tokens;
    }, this::showTokens, (tokens, err) -> {
      if (err != null) {
        if (err instanceof StoreUnavailableException) {
          inDoubt.addAll(claims); // maybe applied: checked by the next round that reaches the store
          sim.count("claims in doubt");
        }
        endRound(false);
        return;
      }
      acceptEach(claims, 0, tokens, term, () -> settleInDoubt(term, () -> endRound(plan.again())));
    });
  }

  /** {@code ReconcileLoop.accept} for each claimed unit, in order (a give-back is a store call of its own). */
  private void acceptEach(List<String> claims, int i, Map<String, Long> tokens, Term term, Runnable next) {
    if (i == claims.size()) {
      next.run();
      return;
    }
    String u = claims.get(i);
    Long t = tokens.get(u);
    OptionalLong token = t == null ? OptionalLong.empty() : OptionalLong.of(t);
    boolean mayRun = term.generation() == lease.generation() && running() && lease.valid();
    Reconciler.Claimed c = units.claimed(u, token, mayRun, sim.now());
    Runnable rest = () -> acceptEach(claims, i + 1, tokens, term, next);
    switch (c) {
      case STARTED -> {
        signal();
        emit(new UnitStart(u, t));
        rest.run();
      }
      case REFUSED -> rest.run();
      case GIVE_BACK -> {
        sim.count("give back");
        call("give back " + u + "#" + store.rel(t), st -> releaseAt(st, u, t, Duration.ZERO), String::valueOf,
            (ok, err) -> {
              if (err instanceof StoreUnavailableException) {
                inDoubt.add(u); // maybe not applied: the unit would stay owned by a session that does not run it
              }
              rest.run();
            });
      }
      default -> throw new IllegalStateException("unknown claim outcome " + c);
    }
  }

  /** {@code ReconcileLoop.settleInDoubt}: releases units in doubt that this session owns but does not track. */
  private void settleInDoubt(Term term, Runnable next) {
    if (inDoubt.isEmpty()) {
      next.run();
      return;
    }
    List<String> check = List.copyOf(inDoubt);
    call("ownersOf " + check, st -> st.ownership(POOL).ownersOf(check), this::showOwners, (owners, err) -> {
      if (err != null) {
        next.run(); // still in doubt: the next round checks again
        return;
      }
      // as ReconcileLoop does: only while the round's generation is current; after a fence meanwhile the member
      // tracks nothing, yet units it started may still be stopping (found by this simulator; FoundInTheSdkTest)
      if (!settleAfterFence && term.generation() != lease.generation()) {
        inDoubt.clear();
        next.run();
        return;
      }
      settleEach(check, 0, owners, units.assigned(), term, next);
    });
  }

  private void settleEach(List<String> check, int i, Map<String, UnitOwner> owners, Map<String, Long> tracked,
      Term term, Runnable next) {
    if (i == check.size()) {
      next.run();
      return;
    }
    String u = check.get(i);
    UnitOwner o = owners.get(u);
    Runnable rest = () -> settleEach(check, i + 1, owners, tracked, term, next);
    if (o != null && o.member().equals(id) && o.session() == term.session()
        && !Long.valueOf(o.token()).equals(tracked.get(u))) {
      sim.count("release in doubt");
      call("release in doubt " + u + "#" + store.rel(o.token()), st -> releaseAt(st, u, o.token(), Duration.ZERO),
          String::valueOf, (ok, err) -> {
            if (!(err instanceof StoreUnavailableException)) {
              inDoubt.remove(u);
            }
            rest.run();
          });
      return;
    }
    inDoubt.remove(u);
    rest.run();
  }

  // =====================================================================================================
  // cancel() (MemberShutdown)

  /** {@code Divider.cancel()}: the steps of {@code MemberShutdown}, each waiting as the real one does. */
  public void cancel() {
    if (phase != Phase.RUNNING) {
      return;
    }
    phase = Phase.CANCELLING;
    trace.add(name, "cancel");
    loopOn = false; // stop the loop: nothing new is claimed
    if (nextRound != null) {
      nextRound.cancel();
      nextRound = null;
    }
    if (loopBusy) {
      awaitingLoopEnd = true;
      sim.after(Math.max(1_000_000_000L, graceNanos), this, this::loopStopped); // join(timeout)
    } else {
      loopStopped();
    }
  }

  private void loopEnded() {
    loopBusy = false;
    if (awaitingLoopEnd) {
      loopStopped();
    }
  }

  private void loopStopped() {
    if (phase != Phase.CANCELLING || graceEndAt != 0) {
      return; // already past this step
    }
    awaitingLoopEnd = false;
    units.stopAll().forEach(this::emit);
    graceEndAt = sim.now() + graceNanos;
    releaseWithinGrace();
  }

  /** Releases the confirmed units while the lease holds, within the grace; waits for confirmations meanwhile. */
  private void releaseWithinGrace() {
    shutdownWait = null;
    if (!lease.held() || units.isEmpty()) {
      afterGrace();
      return;
    }
    if (!units.anyConfirmed()) {
      long left = Math.min(graceEndAt, lease.fenceAtNanos()) - sim.now();
      if (left <= 0) {
        afterGrace();
        return;
      }
      shutdownWait = sim.after(Math.min(left, 50_000_000L), this, this::releaseWithinGrace);
      return;
    }
    releaseConfirmed(this::releaseWithinGrace, () -> {
      trace.add(name, "releasing units at shutdown failed (they expire with the lease)");
      afterGrace();
    });
  }

  private void afterGrace() {
    renewing = false; // stopRenewing
    boolean fenced = !lease.held() && !lease.mayRegister();
    if (lease.held() && !units.isEmpty()) {
      trace.add(name, units.size() + " units not confirmed within the grace; they expire with the lease");
      awaitOldLease();
    } else if (!fenced) {
      leave(true);
    } else if (deregisterAtOnceAfterFence) {
      trace.add(name, "fenced: deregistering at once (hole 3)");
      leave(true);
    } else {
      trace.add(name, "fenced: deregistering once the old lease has surely run out");
      awaitOldLease();
    }
  }

  private void awaitOldLease() {
    shutdownWait = null;
    long left = lease.oldLeaseEndNanos() - sim.now();
    if (left > 0) {
      shutdownWait = sim.after(left, this, this::awaitOldLease); // the watchdog fences meanwhile
      return;
    }
    leave(true);
  }

  /** {@code MemberSession.leave}, then the process exits. */
  private void leave(boolean deregister) {
    watchdogOn = false;
    releaserOn = false; // closeEndpoints: stopReleaser()
    long drop = lease.held() ? session : lastSession;
    lease.drop();
    listener.onLeaseInvalid();
    phase = Phase.LEFT;
    trace.add(name, "left" + (deregister && drop != 0 ? ", deregistering s=" + store.rel(drop) : ""));
    if (drop != 0 && deregister) {
      call("deregister s=" + store.rel(drop), st -> {
        st.membership(POOL).deregister(id, drop);
        net.announceMembers(id);
        return null;
      }, null, (v, err) -> { });
    }
  }

  /** {@code StateLock.signalAll()}: a shutdown step waiting for a confirmation or a release looks again now. */
  private void signal() {
    if (shutdownWait != null && phase == Phase.CANCELLING && graceEndAt != 0 && renewing) {
      shutdownWait.cancel();
      shutdownWait = sim.after(0, this, this::releaseWithinGrace);
    }
  }

  // =====================================================================================================
  // helpers

  private <T> void call(String what, Function<Store, T> op, Function<? super T, String> show,
      Network.Answer<T> answer) {
    net.call(this, what, op, show, answer);
  }

  private String showSession(Long s) {
    return "s=" + store.rel(s);
  }

  private String showTokens(Map<String, Long> tokens) {
    StringBuilder b = new StringBuilder("{");
    tokens.forEach((u, t) -> b.append(b.length() > 1 ? ", " : "").append(u).append('#').append(store.rel(t)));
    return b.append('}').toString();
  }

  private String showOwners(Map<String, UnitOwner> owners) {
    StringBuilder b = new StringBuilder("{");
    owners.forEach((u, o) -> b.append(b.length() > 1 ? ", " : "").append(u).append('=').append(o.member())
        .append("/s").append(store.rel(o.session())).append('#').append(store.rel(o.token())));
    return b.append('}').toString();
  }

  @Override
  public String toString() {
    return name + "(" + phase + ", " + (lease.valid() ? "valid" : "invalid") + ", owns " + units.assigned().keySet()
        + ")";
  }
}
