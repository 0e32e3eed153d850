package io.allot.worker;

import io.allot.store.MemberConflictException;
import io.allot.store.Membership;
import io.allot.store.StoreClock;
import io.allot.store.StoreUnavailableException;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The member's session in the pool: registration, renewal, self-fencing and re-registration, on two threads of its
 * own so that a slow round cannot starve the renewal and a renewal stuck in the store cannot delay the fence:
 * <ul>
 *   <li><b>lease thread</b>, every {@code renewEvery}: renews the session, or registers again after a fence, but only
 *   once the old lease has surely run out ({@link LeaseDeadline#mayRegister()});</li>
 *   <li><b>watchdog</b>, every few ms: fences the member once the deadline (last successful renewal's <em>send</em>
 *   time + {@code leaseTtl - fenceMargin}) has passed.</li>
 * </ul>
 * A refused renewal fences at once.
 *
 * <p>A registration that conflicts with a live session of the same id ({@link MemberConflictException}: this process
 * restarted before its old lease ran out, or another process advertises the same address) is retried: at
 * {@link #start} until the store says that session's lease is over ({@code liveUntilMillis}, store time), at most
 * {@code leaseTtl + clockMargin + renewEvery}, after which start fails naming the id; on the lease thread (after a
 * fence) every {@code renewEvery}, logged once.
 *
 * <p>Fencing ({@link #fenceLocked}) means, in one hold of the state lock: a new
 * generation, a {@code LEASE_LOST} stop for every unconfirmed unit, every unit forgotten (not released: the store
 * may be unreachable; they expire with the lease), pings NOT_SERVING, the {@code onLeaseLost} callback queued.
 *
 * <p>Guards: {@code session} and {@code lastSession} by the {@link StateLock} (as is the {@link LeaseDeadline});
 * {@code lastFencedAtMillis} is written under it and volatile for readers; the rest is set once in {@link #start} or
 * confined to the lease thread as noted.
 */
final class MemberSession {
  private static final Logger log = LoggerFactory.getLogger(MemberSession.class);

  private final Settings settings;
  private final DividerBackend backend;
  private final Membership membership;
  private final StoreClock storeClock;
  private final long clockMarginNanos;
  private final StateLock lock;
  private final LeaseDeadline lease;
  private final Reconciler units;
  private final EventDispatcher events;
  private final PingEndpoint pings;
  private final PublishedMeta meta;
  private final Counters counters;
  private final BooleanSupplier running;
  /** True while the lease must be renewed: running, and while leaving until {@link #stopRenewing()}. */
  private final BooleanSupplier renewing;
  private final Runnable onRegistered;

  /** Guarded by the state lock: the current session while the lease is held. */
  private long session;
  /** Guarded by the state lock: the last session registered (deregistered at shutdown), 0 = none. */
  private long lastSession;
  /** Written under the state lock, read without it. */
  private volatile long lastFencedAtMillis;
  /** Set once by {@link #start}. */
  private volatile String memberId;
  /** Set once by {@link #start}: the lease thread. */
  private volatile FixedRate renewer;
  /** Set once by {@link #start}. */
  private volatile FixedRate watchdog;
  /** Set once by {@link #start}; used by start() and then the lease thread. */
  private volatile RetryLog retryLog;

  MemberSession(Settings settings, DividerBackend backend, Membership membership, StoreClock storeClock, long clockMarginNanos, StateLock lock,
      LeaseDeadline lease, Reconciler units, EventDispatcher events, PingEndpoint pings, PublishedMeta meta,
      Counters counters, BooleanSupplier running, BooleanSupplier renewing, Runnable onRegistered) {
    this.settings = settings;
    this.backend = backend;
    this.membership = membership;
    this.storeClock = storeClock;
    this.clockMarginNanos = clockMarginNanos;
    this.lock = lock;
    this.lease = lease;
    this.units = units;
    this.events = events;
    this.pings = pings;
    this.meta = meta;
    this.counters = counters;
    this.running = running;
    this.renewing = renewing;
    this.onRegistered = onRegistered;
  }

  /**
   * Registers (retried by the lease thread while the store is unreachable; waited for while the id is live under
   * another session) and starts the lease thread and the watchdog.
   *
   * @throws IllegalStateException if the id is still live under another session after {@code leaseTtl + clockMargin +
   *                               renewEvery} (another process advertises it), caused by the store's
   *                               {@link MemberConflictException}
   * @throws RuntimeException      what the store throws for another reason than being unreachable
   */
  void start(String memberId, String tag) {
    this.memberId = memberId;
    retryLog = new RetryLog(log, "pool=" + settings.pool() + " member=" + memberId, "the lease",
        settings.renewEvery().toMillis());
    renewer = new FixedRate(backend, "allot-worker-lease-" + tag, settings.renewNanos(), this::leaseTick);
    watchdog = new FixedRate(backend, "allot-worker-fence-" + tag, settings.watchdogPeriodNanos(), this::watchdogTick);
    try {
      registerWaitingOutConflicts();
    } catch (StoreUnavailableException e) {
      retryLog.unreachable(e); // the lease thread registers as soon as it can
    }
    renewer.start();
    watchdog.start();
  }

  /** The current session, empty while the lease is not held. */
  OptionalLong session() {
    return lock.get(() -> lease.held() ? OptionalLong.of(session) : OptionalLong.empty());
  }

  /** The current session; the caller holds the state lock and has checked {@link LeaseDeadline#held()}. */
  long sessionLocked() {
    assert lock.isHeldByCurrentThread();
    return session;
  }

  long lastFencedAtMillis() {
    return lastFencedAtMillis;
  }

  // ---- registration and renewal (lease thread)

  /**
   * Registers; while the id is live under another session, waits until the store says that lease is over and tries
   * again, for at most {@code leaseTtl + clockMargin + renewEvery}: long enough for the lease of a killed process of
   * this very member to run out, too short for a live one that keeps renewing.
   */
  private void registerWaitingOutConflicts() {
    long maxWait = settings.ttlNanos() + clockMarginNanos + settings.renewNanos();
    long giveUpAt = lease.now() + maxWait;
    boolean logged = false;
    while (true) {
      try {
        register();
        return;
      } catch (MemberConflictException e) {
        long left = giveUpAt - lease.now();
        if (left <= 0) {
          throw new IllegalStateException("member id '" + memberId + "' is still live in pool '" + settings.pool()
              + "' under another session after waiting " + maxWait / 1_000_000L + " ms (leaseTtl + clockMargin +"
              + " renewEvery): another process advertises the same address " + memberId + " and keeps renewing;"
              + " give each process its own host:port (Divider.Builder.host / port)", e);
        }
        long liveNanos = Math.max(0, e.liveUntilMillis() - storeClock.timeMillis()) * 1_000_000L;
        if (!logged) {
          logged = true;
          log.warn("pool={} member={} the id is live under another session for {} ms more (store time): a restart"
                  + " before the old lease ran out, or another process advertising the same address; waiting up to"
                  + " {} ms", settings.pool(), memberId, liveNanos / 1_000_000L, left / 1_000_000L);
        }
        sleepNanos(Math.min(left, Math.max(liveNanos, 1_000_000L)));
      }
    }
  }

  private void sleepNanos(long nanos) {
    try {
      Wakeup.sleep(backend, nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the member id's previous session to end", e);
    }
  }

  /** Registers: a new session. Throws what the store throws. */
  private void register() {
    if (!running.getAsBoolean()) {
      return;
    }
    pings.serving(true); // before the store can list us, so that the distributor's first ping already succeeds
    long version = meta.versionToPublish();
    long sent = lease.now();
    long s;
    try {
      s = membership.register(memberId, meta.current(), settings.leaseTtl());
    } catch (RuntimeException e) {
      pings.serving(false);
      throw e;
    }
    long ack = lease.now();
    boolean undo = !lock.get(() -> {
      if (!running.getAsBoolean()) {
        return false;
      }
      session = s;
      lastSession = s;
      lease.registered(sent, ack);
      lock.signalAll();
      return true;
    });
    if (undo) { // cancel() ran meanwhile and saw no session
      pings.serving(false);
      try {
        membership.deregister(memberId, s);
      } catch (RuntimeException e) {
        log.debug("deregistering a session registered during cancel failed: {}", e.toString());
      }
      return;
    }
    meta.publishedVersion(version);
    counters.registrations.incrementAndGet();
    log.info("pool={} member={} registered, session={}", settings.pool(), memberId, s);
    onRegistered.run();
  }

  /** Every {@code renewEvery}: renew, or register again once the old lease has run out. */
  private void leaseTick() {
    try {
      if (!renewing.getAsBoolean()) {
        return; // (registering again also needs running: register() checks it)
      }
      record Snapshot(boolean held, long session, long generation, boolean mayRegister) {}
      Snapshot now = lock.get(() -> new Snapshot(lease.held(), session, lease.generation(), lease.mayRegister()));
      if (!now.held()) {
        if (!now.mayRegister()) {
          return; // the old lease may still run: give the application the whole margin to stop
        }
        try {
          register();
          retryLog.ok();
        } catch (StoreUnavailableException e) {
          retryLog.unreachable(e);
        } catch (MemberConflictException e) {
          retryLog.conflict(e); // our own old session within its clock margin, or another process: retried
        }
        return;
      }
      long sent = lease.now();
      boolean ok;
      try {
        ok = membership.renew(memberId, now.session(), settings.leaseTtl());
      } catch (StoreUnavailableException e) {
        counters.renewFailures.incrementAndGet();
        retryLog.unreachable(e);
        return;
      }
      long ack = lease.now();
      lock.run(() -> {
        if (now.generation() != lease.generation()) {
          return; // fenced meanwhile: this session is abandoned
        }
        if (ok) {
          lease.renewed(sent, ack);
        } else {
          fenceLocked("the store refused to renew session " + now.session()
              + " (another registration of this id superseded it, or the lease had already expired)");
        }
      });
      retryLog.ok();
    } catch (RuntimeException e) {
      counters.renewFailures.incrementAndGet();
      retryLog.failed(e);
    }
  }

  // ---- fencing (watchdog, lease thread, reconciliation loop)

  /** Every few ms on its own thread. */
  private void watchdogTick() {
    try {
      lock.run(() -> fenceIfRanOut("leaseTtl " + settings.leaseTtl().toMillis() + " ms - fenceMargin "
          + settings.fenceMargin().toMillis() + " ms"));
    } catch (RuntimeException e) {
      log.error("pool={} member={} fence check failed", settings.pool(), memberId, e);
    }
  }

  /**
   * Fences if the lease is held and its deadline has passed; the caller holds the state lock. The reconciliation loop
   * calls it before anything else, so that after a pause it never stops or claims on a lease that ran out before the
   * watchdog had a chance to run.
   *
   * @return true if the lease is not (or no longer) held
   */
  boolean fenceIfRanOut(String seenBy) {
    assert lock.isHeldByCurrentThread();
    if (lease.ranOut()) {
      fenceLocked("no successful lease renewal for " + lease.millisSinceLastRenewSent() + " ms (" + seenBy + ")");
    }
    return !lease.held();
  }

  /** Fences the member; the caller holds the state lock. */
  private void fenceLocked(String reason) {
    assert lock.isHeldByCurrentThread();
    lastFencedAtMillis = lease.fence(backend.currentTimeMillis());
    counters.leaseLosses.incrementAndGet();
    int owned = units.size();
    List<UnitStop> stopped = units.forgetAll();
    stopped.forEach(events::emit);
    lock.signalAll();
    pings.serving(false);
    events.leaseLost(reason);
    events.history().selfFenced(memberId, reason, stopped.size());
    log.warn("pool={} member={} fenced itself: {}; {} units stopped (LEASE_LOST), {} forgotten; registering again once"
        + " the old lease has run out", settings.pool(), memberId, reason, stopped.size(), owned);
  }

  // ---- leaving (shutdown)

  /** Stops renewing: the lease runs out on its own unless the member deregisters first. */
  void stopRenewing() {
    stopExecutor(renewer);
  }

  void stopWatchdog() {
    stopExecutor(watchdog);
  }

  /**
   * Drops the lease locally (a new generation) and, if {@code deregister}, deregisters the last session, if any;
   * never throws. The caller has waited out a fenced lease first ({@link LeaseDeadline#mayRegister()}):
   * deregistering makes the session's units claimable at once.
   */
  void leave(boolean deregister) {
    long drop = lock.get(() -> {
      long d = lease.held() ? session : lastSession;
      lease.drop();
      lock.signalAll();
      return d;
    });
    if (drop == 0 || !deregister) {
      return;
    }
    try {
      membership.deregister(memberId, drop);
      log.info("pool={} member={} deregistered (session {})", settings.pool(), memberId, drop);
    } catch (RuntimeException e) {
      log.warn("pool={} member={} deregistration failed (the lease expires on its own): {}", settings.pool(), memberId,
          e.toString());
    }
  }

  /** Stops the thread (interrupting a tick in progress, as {@code shutdownNow} did) and waits up to 2 s for it. */
  private static void stopExecutor(FixedRate ex) {
    if (ex != null) {
      ex.stop(2_000_000_000L);
    }
  }
}
