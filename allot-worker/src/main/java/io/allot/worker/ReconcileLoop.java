package io.allot.worker;

import io.allot.store.Handoff;
import io.allot.store.Ownership;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import io.allot.store.Membership;
import io.allot.store.Notifications;
import io.allot.store.Topic;
import io.allot.store.UnitOwner;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciliation loop: one thread that runs a round every {@code syncInterval}, when the target changes, when a
 * unit it waits for is released, and when the application calls the SDK ({@link #wake()}). A round does the store
 * calls; every decision is the {@link Reconciler}'s, taken under the {@link StateLock}:
 * <ol>
 *   <li>fence first if the lease deadline passed (a pause just ended and the watchdog has not run yet);</li>
 *   <li>publish the member metadata if it changed; release in the store the units whose stop was confirmed, unless
 *   the releaser is at it (the round does not wait for it);</li>
 *   <li>read the target ({@link TargetSource}); {@link Reconciler#plan}: emit the {@code REASSIGNED} stops;</li>
 *   <li>claim the planned units in one batch; start each granted unit that may still run, give the others back;</li>
 *   <li>settle the claims in doubt (below).</li>
 * </ol>
 * <b>Claims in doubt.</b> A claim batch (or a give-back release) that failed with {@link StoreUnavailableException}
 * may have been applied anyway: the store may then hold units for this session that the member does not know it
 * owns, which nobody would run until the lease ends (never, while it is renewed). Those units are in doubt; the next
 * round that reaches the store asks {@link Ownership#ownersOf} about them and releases each one this session owns
 * under a token the member does not track (a unit claimed again meanwhile got the same token back and is kept).
 *
 * <p><b>The releaser.</b> A {@link Releaser} releases a unit in the store as soon as the application confirms its
 * stop ({@link #confirmed()}), so the next owner, woken by the store's release announcement, can claim it while this
 * loop is still busy with a round; each round also releases what is still confirmed (after a failed release) when
 * the releaser is idle, and the releaser wakes the loop once it released units (their room is free).
 *
 * <p>Guards: the wake-up queue and the releaser are thread-safe; the units in doubt and the last target (and its read
 * time) are the loop thread's; the other fields are set once (volatile) before the threads run.
 */
final class ReconcileLoop {
  private static final Logger log = LoggerFactory.getLogger(ReconcileLoop.class);

  private final Settings settings;
  private final DividerBackend backend;
  private final Ownership ownership;
  private final Membership membership;
  private final Notifications notifications;
  private final TargetSource targets;
  private final StateLock lock;
  private final LeaseDeadline lease;
  private final MemberSession session;
  private final Reconciler units;
  private final EventDispatcher events;
  private final PublishedMeta meta;
  private final Counters counters;
  /** When each unit waiting for its previous owner was first refused (for the handoff gap); guarded by the state lock. */
  private final Map<String, Long> refusedSince = new java.util.HashMap<>();
  private final BooleanSupplier running;

  /** At most one pending wake-up; thread-safe. */
  private final Wakeup wakeups;
  /** Set once by {@link #start}. */
  private volatile String memberId;
  /** Set once by {@link #start}. */
  private volatile DividerBackend.Strand thread;
  /** Set once, by the first successful {@link #subscribe()} (start(), else a later round). */
  private volatile List<Subscription> subscriptions;
  /** Set once by {@link #prepare}; then the loop thread's. */
  private volatile RetryLog retryLog;
  /** Set by the target's change hint (any thread), cleared by the loop thread when it reads the target. */
  private final AtomicBoolean targetChanged = new AtomicBoolean(true);
  /** The loop thread's: the target read last, reused by rounds until a change hint or {@code syncInterval} passed. */
  private List<String> lastTarget;
  /** The loop thread's: when {@link #lastTarget} was read ({@link LeaseDeadline#now()}). */
  private long lastTargetReadNanos;
  /** Releases the confirmed units as soon as they are confirmed; thread-safe. */
  private final Releaser releaser;
  /** The loop thread's: units whose claim or give-back failed on an unreachable store (see the class comment). */
  private final Set<String> inDoubt = new LinkedHashSet<>();
  /** Grants this member does not want, to release (by the loop thread); thread-safe. */
  private final ConcurrentLinkedQueue<UnitOwner> giveBacks = new ConcurrentLinkedQueue<>();
  /**
   * Grants of units outside the target read last ({@link Reconciler.Claimed#DEFER}), with the lease generation they
   * came in: decided after the next target read. Thread-safe queue: the release listener adds, the loop drains.
   */
  private final ConcurrentLinkedQueue<DeferredGrant> deferredGrants = new ConcurrentLinkedQueue<>();

  private record DeferredGrant(UnitOwner grant, long generation) {}
  /** The loop thread's: when the last check of what this session owns ran ({@link LeaseDeadline#now()}). */
  private long lastOwnCheckNanos;
  /** The loop thread's: runs the last check found owned by this session but not tracked (released if seen again). */
  private Map<String, Long> untrackedBefore = Map.of();
  /** The target read last and the table's owner of each unit, read by the releaser for its handoffs; volatile. */
  private volatile List<String> currentTarget;
  private volatile NewOwners newOwners;

  /** The table's members by unit, read for {@code target} (the target list read at the same time). */
  private record NewOwners(List<String> target, Map<String, String> byUnit) {}

  ReconcileLoop(Settings settings, DividerBackend backend, Ownership ownership, Membership membership, Notifications notifications,
      TargetSource targets, StateLock lock, LeaseDeadline lease, MemberSession session, Reconciler units,
      EventDispatcher events, PublishedMeta meta, Counters counters, BooleanSupplier running) {
    this.settings = settings;
    this.backend = backend;
    this.wakeups = new Wakeup(backend);
    this.ownership = ownership;
    this.membership = membership;
    this.notifications = notifications;
    this.targets = targets;
    this.lock = lock;
    this.lease = lease;
    this.session = session;
    this.units = units;
    this.events = events;
    this.meta = meta;
    this.counters = counters;
    this.running = running;
    this.releaser = new Releaser(settings, backend, ownership, lock, units, counters, this::wake, this::newOwnersOf);
  }

  /** Subscribes to the change hints (retried every round if the store refuses). */
  void prepare(String memberId) {
    this.memberId = memberId;
    this.retryLog = new RetryLog(log, "pool=" + settings.pool() + " member=" + memberId, "reconciliation",
        settings.syncInterval().toMillis());
    subscribe();
  }

  /** Starts the loop thread and the releaser. */
  void start(String tag) {
    releaser.start(memberId, tag);
    thread = backend.start("allot-worker-loop-" + tag, this::loop);
  }

  /** Asks for a round soon. Any thread. */
  void wake() {
    wakeups.raise();
  }

  /**
   * The application confirmed a stop: the releaser releases the unit in the store now, without waiting for the
   * loop's round in progress (the next owner, told by the store's announcement, claims it at once). Any thread.
   */
  void confirmed() {
    releaser.request();
  }

  /** Ends the releaser (at the end of the shutdown). */
  void stopReleaser() {
    releaser.stop();
  }

  boolean onLoopThread() {
    DividerBackend.Strand t = thread;
    return t != null && t.isCurrent();
  }

  /** Waits for the loop thread to end (after the divider left RUNNING and {@link #wake()}). */
  void join(long millis) {
    DividerBackend.Strand t = thread;
    if (t == null || t.isCurrent()) {
      return;
    }
    try {
      t.join(millis * 1_000_000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  boolean started() {
    return thread != null;
  }

  /** Closes the subscriptions. */
  void unsubscribe() {
    List<Subscription> subs = subscriptions;
    if (subs != null) {
      subs.forEach(ReconcileLoop::closeQuietly);
    }
  }

  private void loop() {
    boolean again = false;
    while (running.getAsBoolean()) {
      boolean continuing = again;
      again = false;
      try {
        again = round(continuing);
        retryLog.ok();
      } catch (StoreUnavailableException e) {
        counters.storeErrors.incrementAndGet();
        retryLog.unreachable(e);
        targetChanged.set(true); // after a failed round the table is read afresh: claims may be in doubt
      } catch (RuntimeException e) {
        counters.storeErrors.incrementAndGet();
        retryLog.failed(e);
        targetChanged.set(true);
      }
      if (again) {
        continue;
      }
      try {
        long wait = lock.get(() -> units.nextWaitNanos(lease.now(), settings.syncNanos()));
        wakeups.take(wait);
      } catch (InterruptedException e) {
        if (!running.getAsBoolean()) {
          return;
        }
      }
    }
  }

  /**
   * One round; true if more claims are due at once (the claim limit cut the round short). A round reuses the target
   * read last unless the target's change hint came since (or the hint is not subscribed), or that read is
   * {@code syncInterval} old (a timed round reads it again) and the round does not continue a claim chain
   * ({@code continuing}): a failover of thousands of units then costs one claim batch per round trip, and a round
   * woken by a confirmation or by an awaited release goes straight to its stops and claims, without a target read.
   * The target is only a wish (every claim is checked by the store), so a lost hint delays a move by at most
   * {@code syncInterval} (or a claim chain), never doubles it.
   */
  private boolean round(boolean continuing) {
    subscribe();
    record Term(long session, long generation) {}
    Term term = lock.get(() -> session.fenceIfRanOut("seen by the reconciliation loop") ? null
        : new Term(session.sessionLocked(), lease.generation()));
    if (term == null) {
      return false;
    }
    meta.publishIfChanged(membership, memberId, term.session());
    releaser.releaseConfirmedUnlessBusy(); // after a failed release; never waits for the releaser's store call

    boolean changed = targetChanged.getAndSet(false);
    long now = lease.now();
    List<String> target;
    List<DeferredGrant> deferred = new ArrayList<>();
    if (!changed && lastTarget != null && subscriptions != null
        && (continuing || now - lastTargetReadNanos < settings.syncNanos())) {
      target = lastTarget;
    } else {
      // the grants deferred so far were announced before this read, so it is at least as new as their table
      for (DeferredGrant d; (d = deferredGrants.poll()) != null; ) {
        deferred.add(d);
      }
      try {
        target = targets.read(memberId);
      } catch (RuntimeException e) {
        deferredGrants.addAll(deferred);
        targetChanged.set(true); // read it again next round
        throw e;
      }
      lastTarget = target;
      currentTarget = target;
      lastTargetReadNanos = now;
    }
    Reconciler.Plan plan = lock.get(() -> {
      if (term.generation() != lease.generation() || !running.getAsBoolean()) {
        return null; // deferred grants of an earlier generation are dropped: never started, freed by that lease
      }
      if (!deferred.isEmpty()) {
        units.target(target);
        boolean mayRun = running.getAsBoolean() && lease.valid();
        for (DeferredGrant d : deferred) {
          if (d.generation() != term.generation()) {
            continue; // an earlier session's grant: never started here; its lease frees it
          }
          UnitOwner g = d.grant();
          Reconciler.Claimed c = units.granted(g.unit(), g.token(), mayRun, true);
          if (c == Reconciler.Claimed.STARTED) {
            startedByGrant(g);
          } else if (c == Reconciler.Claimed.GIVE_BACK) {
            giveBacks.add(g);
          }
        }
      }
      Reconciler.Plan p = units.plan(target, lease.valid(), lease.now());
      p.stops().forEach(events::emit);
      return p;
    });
    if (plan == null) {
      return false;
    }
    if (!plan.claims().isEmpty()) {
      Map<String, Long> tokens;
      try {
        tokens = ownership.claimAll(plan.claims(), memberId, term.session());
      } catch (StoreUnavailableException e) {
        inDoubt.addAll(plan.claims()); // maybe applied: checked by the next round that reaches the store
        throw e;
      }
      events.history().claims(memberId, plan.claims(), tokens);
      for (String u : plan.claims()) {
        Long t = tokens.get(u);
        accept(u, t == null ? OptionalLong.empty() : OptionalLong.of(t), term.generation());
      }
    }
    giveBackGrants();
    settleInDoubt(term.session(), term.generation());
    if (now - lastOwnCheckNanos >= settings.ownCheckNanos()) {
      lastOwnCheckNanos = now;
      checkWhatThisSessionOwns(term.session(), term.generation());
    }
    return plan.again(); // refused units are not candidates again at once
  }

  /**
   * Releases the grants this member did not want ({@link #onReleased}); one that fails on an unreachable store is in
   * doubt (settled by {@link #settleInDoubt}).
   */
  private void giveBackGrants() {
    for (UnitOwner g; (g = giveBacks.poll()) != null; ) {
      try {
        if (ownership.release(g.unit(), memberId, g.token())) {
          counters.releases.incrementAndGet();
        }
      } catch (StoreUnavailableException e) {
        inDoubt.add(g.unit());
      } catch (RuntimeException e) {
        log.debug("giving back granted unit {} failed (it expires with the lease): {}", g.unit(), e.toString());
      }
    }
  }

  /**
   * The periodic check (every {@link Settings#ownCheckNanos() 20 syncIntervals}) that heals a lost grant announcement of a unit this member does
   * not want: reads the pool's owners and releases each run this session owns without tracking it, once two checks
   * in a row saw it (a grant whose announcement is merely on its way is started meanwhile, not released). A run is
   * marked given back ({@link Reconciler#giveBackUntracked}) under the lock before its release, so its announcement,
   * if it comes later, is ignored. Only while {@code generation} is current, as {@link #settleInDoubt}.
   */
  private void checkWhatThisSessionOwns(long session, long generation) {
    Map<String, UnitOwner> all;
    try {
      all = ownership.owners();
    } catch (StoreUnavailableException e) {
      return; // next time
    }
    Map<String, Long> mine = new HashMap<>();
    all.forEach((u, o) -> {
      if (o.member().equals(memberId) && o.session() == session) {
        mine.put(u, o.token());
      }
    });
    Map<String, Long> before = untrackedBefore;
    Map<String, Long> untracked = new HashMap<>();
    List<UnitOwner> release = new ArrayList<>();
    lock.run(() -> {
      if (generation != lease.generation()) {
        return;
      }
      Map<String, Long> tracked = units.assigned();
      mine.forEach((u, t) -> {
        if (t.equals(tracked.get(u))) {
          return;
        }
        if (t.equals(before.get(u))) {
          if (units.giveBackUntracked(u, t)) {
            release.add(new UnitOwner(u, memberId, session, t));
          }
        } else {
          untracked.put(u, t);
        }
      });
    });
    untrackedBefore = untracked;
    for (UnitOwner o : release) {
      try {
        if (ownership.release(o.unit(), memberId, o.token())) {
          counters.releases.incrementAndGet();
          log.info("pool={} member={} released unit {} (token {}): this session owned it without running it (a"
              + " grant whose announcement was lost)", settings.pool(), memberId, o.unit(), o.token());
        }
      } catch (StoreUnavailableException e) {
        inDoubt.add(o.unit());
      }
    }
  }

  /**
   * The table's member for each of {@code units} (those the table gives to another member), for the releaser's push
   * handoffs: read from the whole table once per target read (a table change makes the loop read the target again),
   * empty if the target has not been read or the table cannot be read (the units are then just released).
   */
  private Map<String, String> newOwnersOf(Collection<String> units) {
    List<String> target = currentTarget;
    if (target == null) {
      return Map.of();
    }
    NewOwners cached = newOwners;
    if (cached == null || cached.target() != target) {
      try {
        cached = new NewOwners(target, targets.owners());
      } catch (RuntimeException e) {
        log.debug("pool={} reading the table's owners failed (plain releases): {}", settings.pool(), e.toString());
        return Map.of();
      }
      newOwners = cached;
    }
    Map<String, String> out = new HashMap<>();
    for (String u : units) {
      String m = cached.byUnit().get(u);
      if (m != null && !m.equals(memberId)) {
        out.put(u, m);
      }
    }
    return out;
  }

  /**
   * Releases the units in doubt that the store says {@code session} owns under a token the member does not track;
   * forgets the others. A unit whose check or release fails on an unreachable store stays in doubt (for the next
   * round), without failing this round. Only while {@code generation} is current: once the member fenced itself it
   * tracks nothing, yet units it started may still be stopping after {@code LEASE_LOST}; releasing them would let
   * another member claim them before the old lease ran out (found by allot-sim, seeds 19462 and 25417), so the
   * doubt is dropped instead and those units expire with the lease.
   */
  private void settleInDoubt(long session, long generation) {
    if (inDoubt.isEmpty()) {
      return;
    }
    List<String> check = List.copyOf(inDoubt);
    Map<String, UnitOwner> owners;
    try {
      owners = ownership.ownersOf(check);
    } catch (StoreUnavailableException e) {
      log.debug("pool={} checking {} units in doubt failed (next round): {}", settings.pool(), check.size(),
          e.toString());
      return;
    }
    // a grant can start a unit on the listener's thread at any time: decide and mark under the state lock
    // (Reconciler.markGivenBack), so a grant of the same run is either started before (tracked: kept) or stale after
    Map<String, UnitOwner> release = lock.get(() -> {
      if (generation != lease.generation()) {
        return null;
      }
      Map<String, UnitOwner> r = new HashMap<>();
      for (String u : check) {
        UnitOwner o = owners.get(u);
        if (o != null && o.member().equals(memberId) && o.session() == session
            && units.markGivenBack(u, o.token())) {
          r.put(u, o);
        }
      }
      return r;
    });
    if (release == null) {
      inDoubt.clear();
      return;
    }
    for (String u : check) {
      UnitOwner o = release.get(u);
      if (o != null) {
        try {
          if (ownership.release(u, memberId, o.token())) {
            counters.releases.incrementAndGet();
            log.info("pool={} member={} released unit {} (token {}): a claim in doubt had been applied, but the"
                + " unit is not run here", settings.pool(), memberId, u, o.token());
          }
        } catch (StoreUnavailableException e) {
          continue; // still in doubt: checked and marked again next round
        }
      }
      inDoubt.remove(u);
    }
  }

  /** Takes the answer to the claim of {@code unit}: starts it, remembers the refusal, or gives the token back. */
  private void accept(String unit, OptionalLong token, long generation) {
    Reconciler.Claimed result = lock.get(() -> {
      boolean mayRun = generation == lease.generation() && running.getAsBoolean() && lease.valid();
      Reconciler.Claimed c = units.claimed(unit, token, mayRun, lease.now());
      switch (c) {
        case STARTED -> {
          counters.claims.incrementAndGet();
          Long since = refusedSince.remove(unit);
          if (since != null) {
            counters.handoffGapNanos.accept(lease.now() - since);
          }
          lock.signalAll();
          events.emit(new UnitStart(unit, token.getAsLong()));
        }
        case REFUSED -> {
          counters.claimsRefused.incrementAndGet();
          if (refusedSince.size() >= 100_000) {
            refusedSince.clear(); // units refused and then placed elsewhere: never grow without bound
          }
          refusedSince.putIfAbsent(unit, lease.now());
        }
        case GIVE_BACK, KEPT -> { }
      }
      return c;
    });
    if (result == Reconciler.Claimed.GIVE_BACK) { // fenced, cancelled or draining meanwhile: never started
      try {
        ownership.release(unit, memberId, token.getAsLong());
      } catch (StoreUnavailableException e) {
        inDoubt.add(unit); // maybe not applied: the unit would stay owned by a live session that does not run it
        log.debug("giving back unclaimed unit {} failed (checked again next round): {}", unit, e.toString());
      } catch (RuntimeException e) {
        log.debug("giving back unclaimed unit {} failed (it expires with the lease): {}", unit, e.toString());
      }
    }
  }

  /** Releases in the store every unit whose stop was confirmed ({@link Releaser#releaseConfirmed()}). */
  void releaseConfirmed() {
    releaser.releaseConfirmed();
  }

  /**
   * A release announced by the store: a round at once if this member waits for the unit. A grant of a push handoff
   * to this member's current session starts the unit here, without a store call, if it is wanted and the lease is
   * valid ({@link Reconciler#granted}: a stale or reordered announcement is ignored); a grant it does not want is
   * given back by the loop. Grants to another member or session are ignored.
   */
  private void onReleased(String message) {
    if (!Handoff.isGrant(message)) {
      if (lock.get(() -> units.releaseAnnounced(message))) {
        wake();
      }
      return;
    }
    if (!message.contains("|" + memberId + "|")) {
      return; // a grant to another member: not worth the state lock (every member hears every grant)
    }
    UnitOwner grant = lock.get(() -> {
      if (!lease.held()) {
        return null;
      }
      UnitOwner g = Handoff.grantTo(message, memberId, session.sessionLocked()).orElse(null);
      if (g == null) {
        return null;
      }
      boolean mayRun = running.getAsBoolean() && lease.valid();
      Reconciler.Claimed c = units.granted(g.unit(), g.token(), mayRun, false);
      if (c == Reconciler.Claimed.STARTED) {
        startedByGrant(g);
        return null;
      }
      if (c == Reconciler.Claimed.DEFER) {
        // outside the target read last, which may be older than the old owner's table (a joining member hears
        // its grants before its own read): kept, decided after the next read
        deferredGrants.add(new DeferredGrant(g, lease.generation()));
        targetChanged.set(true);
        wake();
        return null;
      }
      return c == Reconciler.Claimed.GIVE_BACK ? g : null;
    });
    if (grant != null) {
      giveBacks.add(grant);
      wake();
    }
  }

  /** A grant started {@code g}'s unit: counted and announced. Under the state lock. */
  private void startedByGrant(UnitOwner g) {
    counters.claims.incrementAndGet();
    counters.grants.incrementAndGet();
    Long since = refusedSince.remove(g.unit());
    if (since != null) {
      counters.handoffGapNanos.accept(lease.now() - since);
    }
    lock.signalAll();
    events.emit(new UnitStart(g.unit(), g.token()));
  }

  private void subscribe() {
    if (subscriptions != null) {
      return;
    }
    List<Subscription> subs = new ArrayList<>();
    try {
      subs.add(targets.watch(() -> {
        targetChanged.set(true);
        wake();
      }));
      subs.add(notifications.subscribe(Topic.releases(settings.pool()), this::onReleased));
      subscriptions = subs;
    } catch (RuntimeException e) {
      subs.forEach(ReconcileLoop::closeQuietly);
      log.debug("pool={} subscribing failed (retried next round; polling meanwhile): {}", settings.pool(),
          e.toString());
    }
  }

  private static void closeQuietly(Subscription s) {
    try {
      s.close();
    } catch (RuntimeException e) {
      log.debug("closing a subscription: {}", e.toString());
    }
  }
}
