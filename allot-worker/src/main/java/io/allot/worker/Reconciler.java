package io.allot.worker;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The unit table of one member and the decisions of reconciliation, as a pure state machine: no threads, no store,
 * no clock (times are passed in). Not thread-safe: the divider calls it under its {@link StateLock}; the caller emits
 * the events the methods return while still holding that lock, and makes the store calls after releasing it.
 *
 * <p>A unit's life here: claimed and started ({@link State#RUNNING}) &rarr; a {@code REASSIGNED}, {@code RELEASED}
 * or {@code SHUTDOWN} stop ({@link State#STOPPING}) &rarr; confirmed by the application for that very run, named by
 * its token ({@link State#CONFIRMED}) &rarr; released in the store (with a hold if the application released it) and
 * forgotten. A fence forgets every unit at once.
 *
 * <p>Rules kept here (each has a test in {@code ReconcilerTest} and a property in {@code ReconcilerProperties}):
 * <ul>
 *   <li>a unit of the owned set that left the target gets one {@code REASSIGNED} stop, and at most
 *   {@code maxConcurrentMoves} such stops are not released yet (unconfirmed, or confirmed and not yet released) at
 *   a time;</li>
 *   <li>claims go to units of the target that are neither owned nor on release hold, in target order, at most
 *   {@code claimBatch} per round and never beyond {@code capacity}; none while draining or without a valid
 *   lease; a unit whose claim was refused is retried when its release is announced (also when the announcement
 *   arrived before the refusal: the store may have refused the claim just before the release), else after
 *   {@code retryRefusedNanos}, doubled after each further refusal up to 4 times it; units whose release was
 *   announced are claimed first;</li>
 *   <li>a granted claim starts the unit only if it may still run (lease, generation, not draining, not owned, not held,
 *   within capacity); otherwise the token is given back: a unit is never started twice;</li>
 *   <li>a confirmation or a release acts only on the run its token names: a late one from an earlier run of the same
 *   unit changes nothing;</li>
 *   <li>a release goes through the stopping state like any other stop: the unit is released in the store only once
 *   the application confirmed that the run stopped.</li>
 * </ul>
 */
final class Reconciler {

  /** Where an owned unit is in the handoff. */
  enum State {
    /** Started; the application runs it. */
    RUNNING,
    /** A REASSIGNED, RELEASED or SHUTDOWN stop was emitted; waiting for the application's confirmation. */
    STOPPING,
    /** Stopped by the application; to be released in the store. */
    CONFIRMED
  }

  /** A unit this member owns in the store, with its fencing token. Mutable state; identity matters. */
  static final class Owned {
    final String unit;
    final long token;
    /** What it counts against the capacity (its cost when claimed). */
    int cost = 1;
    State state = State.RUNNING;
    /** Why it is STOPPING (or was, once CONFIRMED); null while RUNNING. */
    StopReason stop;
    /** True once the application released it: released in the store with the release hold. */
    boolean hold;

    Owned(String unit, long token) {
      this.unit = unit;
      this.token = token;
    }

    @Override
    public String toString() {
      return unit + "#" + token + "(" + state + ")";
    }
  }

  /**
   * One round's decisions.
   *
   * @param stops  the {@code REASSIGNED} stops to emit, in this order (those units are now STOPPING)
   * @param claims units to claim now, in order
   * @param again  true if the claim limit cut the candidates short: another round is due at once
   */
  record Plan(List<UnitStop> stops, List<String> claims, boolean again) {}

  /** What became of a claim's answer. */
  enum Claimed {
    /** The unit is owned and RUNNING: emit its {@code UnitStart}. */
    STARTED,
    /** The store refused the claim (the unit has another live owner); retried later. */
    REFUSED,
    /** Granted, but the unit may not run any more: give the token back at once, never start it. */
    GIVE_BACK,
    /**
     * The answer names the run already owned (a push handoff's grant started it while the claim was in flight, or
     * a late or repeated grant): nothing to do, and never a give-back (that would release a running unit).
     */
    KEPT,
    /**
     * A grant of a unit outside the target read last, which may be older than the old owner's (a joining member
     * hears its grants before its own table read): kept owned, not started, and decided again
     * ({@link #granted(String, long, boolean, boolean)} with a fresh target) once the loop has read the target again.
     */
    DEFER
  }

  private final int capacity;
  /** A unit's cost in capacity units (1 unless the units are long-running tasks with a cost). */
  private final java.util.function.ToIntFunction<String> cost;
  /** The summed cost of {@link #owned}, as each unit cost when it was claimed. */
  private long ownedCost;
  private final int maxMoves;
  private final int claimBatch;
  private final long holdNanos;
  private final long retryRefusedNanos;

  /** Owned units in claim order. */
  private final Map<String, Owned> owned = new LinkedHashMap<>();
  /** Unit -> until when it is not claimed again (nano clock), after {@link #release}. */
  private final Map<String, Long> holdUntil = new HashMap<>();
  /** Unit -> when its claim was refused (nano clock). */
  private final Map<String, Long> refusedAt = new HashMap<>();
  /**
   * Unit -> claims of it refused in a row without an announced release: the wait before the next try doubles with
   * each, from {@code retryRefusedNanos} up to {@value #MAX_BACKOFF} times it (a previous owner still stopping
   * announces its release; the timed retry is only the fallback for a lost announcement or an owner that died).
   */
  private final Map<String, Integer> refusals = new HashMap<>();
  /** The longest wait before retrying a refused claim, in multiples of {@code retryRefusedNanos}. */
  static final int MAX_BACKOFF = 4;
  /** Units of the last target that are neither owned nor held, in target order: a release announced for one of them is
   * awaited. */
  private Set<String> wanted = new LinkedHashSet<>();
  /** The target of the last plan, and its units as a set (built again only for another list). */
  private List<String> lastTarget;
  private Set<String> lastTargetSet = Set.of();
  /**
   * {@link #wanted} must be computed again from the target (another target, a unit of the target no longer owned,
   * a hold ended); a claimed unit is just taken out of it. So a round costs O(target) only when something changed.
   */
  private boolean wantStale = true;
  /**
   * The RUNNING owned runs outside the target, in claim order, to stop (runs stopped otherwise meanwhile are skipped
   * when met); computed again for another target ({@code leavingStale}), a grant outside the target added. So the
   * stops of a round cost what they stop, not a scan of every owned unit.
   */
  private final Set<Owned> leaving = new LinkedHashSet<>();
  private boolean leavingStale = true;
  /**
   * Wanted units whose release was announced since they were last picked for a claim, in announcement order: claimed
   * first, and a refusal of a claim sent before the announcement arrived does not hold them back (the store may have
   * refused it just before the release).
   */
  private final Set<String> announced = new LinkedHashSet<>();
  /** True from {@code flush} until the affinity goes above 0 again: nothing is claimed. */
  private boolean draining;
  /**
   * Unit -> the highest token of it this member started, released or gave back (kept across fences; grants to an
   * earlier session are ignored by their session anyway). A push handoff's grant announcement with a token at or
   * below it is stale or reordered (that run is over here, or never ran) and is ignored; a claim answered with such
   * a token that was not started here is given back (a give-back of that very token is under way). At most one
   * entry per unit this member owned or was granted.
   */
  private final Map<String, Long> seen = new HashMap<>();
  /**
   * Unit -> the highest token this member started (kept across fences). A run started here is never given back on
   * a claim's answer or by the check of what the session owns: after a fence it is forgotten here while the
   * application may still be stopping it, and only its lease may free it (found by allot-sim, seed 2701 of the
   * main configuration: a claim sent before a grant and answered after the fence released the granted run).
   */
  private final Map<String, Long> started = new HashMap<>();

  /**
   * @param capacity          the most units owned at once
   * @param maxMoves          REASSIGNED stops not yet released at a time (at least 1)
   * @param holdNanos         how long a released unit is held back
   * @param retryRefusedNanos how long after a refusal a unit is a candidate again without an announced release
   */
  Reconciler(int capacity, int maxMoves, long holdNanos, long retryRefusedNanos) {
    this(capacity, maxMoves, maxMoves, holdNanos, retryRefusedNanos);
  }

  /** As above, with {@code claimBatch} claims per round (at least 1). */
  Reconciler(int capacity, int maxMoves, int claimBatch, long holdNanos, long retryRefusedNanos) {
    this(capacity, maxMoves, claimBatch, holdNanos, retryRefusedNanos, u -> 1);
  }

  /**
   * As above, with capacity counted in {@code cost} units: the units owned at once (also those still stopping) never
   * cost more than {@code capacity} in sum. A unit's cost is read when it is picked and when it is claimed.
   */
  Reconciler(int capacity, int maxMoves, int claimBatch, long holdNanos, long retryRefusedNanos,
      java.util.function.ToIntFunction<String> cost) {
    this.cost = java.util.Objects.requireNonNull(cost, "cost");
    if (capacity < 0 || maxMoves < 1 || claimBatch < 1 || holdNanos < 0 || retryRefusedNanos < 0) {
      throw new IllegalArgumentException("capacity " + capacity + ", maxMoves " + maxMoves + ", claimBatch " + claimBatch
          + ", holdNanos " + holdNanos
          + ", retryRefusedNanos " + retryRefusedNanos);
    }
    this.capacity = capacity;
    this.maxMoves = maxMoves;
    this.claimBatch = claimBatch;
    this.holdNanos = holdNanos;
    this.retryRefusedNanos = retryRefusedNanos;
  }

  /**
   * Takes {@code target} as the target (what {@link #plan} does first), so that grants deferred before it was read
   * can be decided against it before the round plans.
   */
  void target(List<String> target) {
    if (target != lastTarget) { // the loop passes the same list again until it reads the target again
      lastTargetSet = new LinkedHashSet<>(target);
      lastTarget = target;
      wantStale = true;
      leavingStale = true;
    }
  }

  /**
   * One reconciliation round against {@code target}: marks the stops (RUNNING &rarr; STOPPING) and picks the claims.
   *
   * @param target     the units this member should own, in order (duplicates are ignored); never changed after the
   *                   call (passing the same list again means the same target)
   * @param leaseValid whether the lease may be trusted now; without it nothing is claimed
   * @param now        the nano clock
   */
  Plan plan(List<String> target, boolean leaseValid, long now) {
    target(target);
    Set<String> targetSet = lastTargetSet;
    if (holdUntil.entrySet().removeIf(e -> now - e.getValue() >= 0 || !targetSet.contains(e.getKey()))) {
      wantStale = true;
    }

    if (leavingStale) {
      leaving.clear();
      for (Owned o : owned.values()) {
        if (o.state == State.RUNNING && !targetSet.contains(o.unit)) {
          leaving.add(o);
        }
      }
      leavingStale = false;
    }
    List<UnitStop> stops = new ArrayList<>();
    if (!leaving.isEmpty()) {
      int stopping = movesInFlight();
      for (Iterator<Owned> it = leaving.iterator(); it.hasNext(); ) {
        Owned o = it.next();
        if (o.state != State.RUNNING || owned.get(o.unit) != o) {
          it.remove(); // stopped otherwise meanwhile (released, shut down, fenced)
          continue;
        }
        if (stopping >= maxMoves) {
          break; // the rest follows as stops get released (each release pass starts a round)
        }
        stops.add(stop(o, StopReason.REASSIGNED));
        it.remove();
        stopping++;
      }
    }

    if (wantStale) {
      Set<String> want = new LinkedHashSet<>();
      for (String u : targetSet) {
        if (!owned.containsKey(u) && !holdUntil.containsKey(u)) {
          want.add(u);
        }
      }
      wanted = want;
      refusedAt.keySet().retainAll(want);
      refusals.keySet().retainAll(want);
      announced.retainAll(want);
      wantStale = false;
    }

    long room = capacity - ownedCost;
    if (room <= 0 || draining || !leaseValid) {
      return new Plan(stops, List.of(), false); // a release (which starts a round) makes room
    }
    // released units first (their previous owner is done: the claim succeeds), then the rest in target order
    List<String> claims = new ArrayList<>();
    boolean cut = false;
    Iterator<String> it = candidates(now);
    while (it.hasNext()) {
      String u = it.next();
      if (claims.size() >= claimBatch) {
        cut = true;
        break;
      }
      int c = unitCost(u);
      if (c <= room) { // a unit too costly for the room left waits for a release (which starts a round)
        claims.add(u);
        room -= c;
      }
    }
    claims.forEach(announced::remove);
    return new Plan(stops, claims, cut);
  }

  /**
   * The claim candidates in order, produced as the plan takes them: the announced units, then the other wanted units
   * (target order) not refused, or refused long enough ago.
   */
  private Iterator<String> candidates(long now) {
    Iterator<String> first = announced.iterator();
    Iterator<String> rest = wanted.iterator();
    return new Iterator<>() {
      private String next;

      @Override
      public boolean hasNext() {
        while (next == null) {
          if (first.hasNext()) {
            next = first.next();
          } else if (rest.hasNext()) {
            String u = rest.next();
            Long refused = refusedAt.get(u);
            if (!announced.contains(u) && (refused == null || now - refused >= retryAfter(u))) {
              next = u;
            }
          } else {
            return false;
          }
        }
        return true;
      }

      @Override
      public String next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        String u = next;
        next = null;
        return u;
      }
    };
  }

  /**
   * The store answered the claim of {@code unit}: {@code token}, or empty if refused.
   *
   * @param mayRun whether the claim's generation is still current, the divider still running and the lease valid
   */
  Claimed claimed(String unit, OptionalLong token, boolean mayRun, long now) {
    if (token.isEmpty()) {
      if (!announced.contains(unit)) { // else released since the claim was sent: a candidate again at once
        refusedAt.put(unit, now);
        refusals.merge(unit, 1, Integer::sum);
      }
      return Claimed.REFUSED;
    }
    refusedAt.remove(unit);
    refusals.remove(unit);
    Owned had = owned.get(unit);
    if (had != null && had.token == token.getAsLong()) {
      return Claimed.KEPT; // started by its grant meanwhile
    }
    if (started.getOrDefault(unit, Long.MIN_VALUE) == token.getAsLong()) {
      return Claimed.KEPT; // a run started here and forgotten since (fenced): it ends with the lease, never released
    }
    if (token.getAsLong() <= seen.getOrDefault(unit, Long.MIN_VALUE)) {
      return Claimed.GIVE_BACK; // that run was given back or released here already
    }
    return start(unit, token.getAsLong(), mayRun) ? Claimed.STARTED : Claimed.GIVE_BACK;
  }

  /**
   * A push handoff granted {@code unit} to this member's current session with {@code token} (the store's release
   * announcement; no store call). Ignored ({@link Claimed#KEPT}) if the unit is owned here (that run, or an older
   * run still being released: the claim after its release gets the new token back) or {@code token} is at or below
   * the highest token of the unit this session has seen (a stale or reordered announcement); else started as a
   * granted claim is ({@link Claimed#STARTED}), or to be given back ({@link Claimed#GIVE_BACK}) if the member does
   * not want the unit now (not in the target, held, draining, no room, or it may not run: {@code mayRun}).
   */
  Claimed granted(String unit, long token, boolean mayRun) {
    return granted(unit, token, mayRun, true);
  }

  /**
   * {@link #granted(String, long, boolean)}; a grant outside the target is {@link Claimed#DEFER deferred} unless
   * {@code targetFresh} (the target was read after the grant was announced), then it is to be given back.
   */
  Claimed granted(String unit, long token, boolean mayRun, boolean targetFresh) {
    if (owned.containsKey(unit) || token <= seen.getOrDefault(unit, Long.MIN_VALUE)) {
      return Claimed.KEPT;
    }
    if (!lastTargetSet.contains(unit)) {
      if (!targetFresh) {
        return Claimed.DEFER;
      }
      seen.merge(unit, token, Math::max);
      return Claimed.GIVE_BACK;
    }
    refusedAt.remove(unit);
    refusals.remove(unit);
    return start(unit, token, mayRun) ? Claimed.STARTED : Claimed.GIVE_BACK;
  }

  /**
   * A claim in doubt of {@code unit} was applied with {@code token} and this member does not run it: true if that
   * run is neither tracked nor was ever started here, and then it is marked given back (a grant announcement of it,
   * even one deferred or on its way, is ignored from now on), so the caller may release it; repeatable, for a
   * release that did not reach the store. Push handoffs start units on the listener's thread, so this check and the
   * mark must be one step under the state lock: a grant started before it is tracked, one after it is stale.
   */
  boolean markGivenBack(String unit, long token) {
    Owned o = owned.get(unit);
    if ((o != null && o.token == token) || started.getOrDefault(unit, Long.MIN_VALUE) == token) {
      return false;
    }
    seen.merge(unit, token, Math::max);
    return true;
  }

  /**
   * A run of {@code unit} with {@code token} that the store says this session owns but this member does not track
   * (a lost or late grant announcement, a claim in doubt): true if it is not tracked, now marked as given back (a
   * later grant announcement of it is ignored), so the caller releases it; false if it is tracked or was seen.
   */
  boolean giveBackUntracked(String unit, long token) {
    Owned o = owned.get(unit);
    if ((o != null && o.token == token) || token <= seen.getOrDefault(unit, Long.MIN_VALUE)
        || started.getOrDefault(unit, Long.MIN_VALUE) == token) {
      return false;
    }
    seen.put(unit, token);
    return true;
  }

  /** Starts {@code unit} with {@code token} if it may run and is wanted now; records the token as seen either way. */
  private boolean start(String unit, long token, boolean mayRun) {
    seen.merge(unit, token, Math::max);
    int c = unitCost(unit);
    if (mayRun && !draining && !owned.containsKey(unit) && !holdUntil.containsKey(unit) && ownedCost + c <= capacity) {
      Owned o = new Owned(unit, token);
      o.cost = c;
      owned.put(unit, o);
      ownedCost += c;
      started.merge(unit, token, Math::max);
      wanted.remove(unit);
      announced.remove(unit);
      if (!lastTargetSet.contains(unit)) {
        leaving.add(o); // a grant outside the target (the answer to an older plan): stopped by the next plan
      }
      return true;
    }
    return false;
  }

  /**
   * The application confirmed the stop of the run of {@code unit} with {@code token}; true if that run was STOPPING
   * (now CONFIRMED). A confirmation naming another run (an earlier one, confirmed late) changes nothing.
   */
  boolean confirmStop(String unit, long token) {
    Owned o = run(unit, token);
    if (o != null && o.state == State.STOPPING) {
      o.state = State.CONFIRMED;
      return true;
    }
    return false;
  }

  /** What {@link #release} found. */
  enum Released {
    /** That run is not owned: nothing changed. */
    NOT_OWNED,
    /** It was running: it is now STOPPING; emit a {@code RELEASED} stop and wait for the confirmation. */
    WAS_RUNNING,
    /** It was stopping or confirmed already: no stop to emit; it is released with the hold once confirmed. */
    WAS_STOPPED
  }

  /**
   * The application gives up the run of {@code unit} with {@code token}: a RUNNING unit gets a {@code RELEASED} stop
   * (STOPPING; released in the store once the application confirms it); either way it is released with the hold and
   * not claimed again while held.
   */
  Released release(String unit, long token, long now) {
    Owned o = run(unit, token);
    if (o == null) {
      return Released.NOT_OWNED;
    }
    holdUntil.put(unit, now + holdNanos);
    o.hold = true;
    if (o.state == State.RUNNING) {
      stop(o, StopReason.RELEASED);
      return Released.WAS_RUNNING;
    }
    return Released.WAS_STOPPED;
  }

  /** The units to release in the store now (CONFIRMED), in claim order. */
  List<Owned> confirmed() {
    List<Owned> out = new ArrayList<>();
    for (Owned o : owned.values()) {
      if (o.state == State.CONFIRMED) {
        out.add(o);
      }
    }
    return out;
  }

  /** {@code o} was released in the store (or found not owned any more): forgets it; true if it was still here. */
  boolean released(Owned o) {
    seen.merge(o.unit, o.token, Math::max);
    if (owned.get(o.unit) == o) {
      owned.remove(o.unit);
      ownedCost -= o.cost;
      if (lastTargetSet.contains(o.unit)) {
        wantStale = true; // wanted again (unless held)
      }
      return true;
    }
    return false;
  }

  /**
   * Fencing: forgets every unit (they expire with the lease in the store) and the refused claims.
   *
   * @return the {@code LEASE_LOST} stops of the runs that were not confirmed
   */
  List<UnitStop> forgetAll() {
    List<UnitStop> stops = new ArrayList<>();
    for (Owned o : owned.values()) {
      if (o.state != State.CONFIRMED) {
        stops.add(new UnitStop(o.unit, o.token, StopReason.LEASE_LOST));
      }
    }
    owned.clear();
    ownedCost = 0;
    leaving.clear();
    wantStale = true;
    refusedAt.clear();
    refusals.clear();
    announced.clear();
    return stops;
  }

  /** Shutdown: every RUNNING unit becomes STOPPING; returns their {@code SHUTDOWN} stops. */
  List<UnitStop> stopAll() {
    List<UnitStop> stops = new ArrayList<>();
    for (Owned o : owned.values()) {
      if (o.state == State.RUNNING) {
        stops.add(stop(o, StopReason.SHUTDOWN));
      }
    }
    return stops;
  }

  /**
   * The store announced that {@code unit} was released: true if this member waits for it (the refusal is forgotten,
   * so the next round claims it).
   */
  boolean releaseAnnounced(String unit) {
    if (wanted.contains(unit)) {
      refusedAt.remove(unit);
      refusals.remove(unit);
      announced.add(unit);
      return true;
    }
    return false;
  }

  /** Starts or ends draining (no claims while draining). */
  void draining(boolean on) {
    draining = on;
  }

  boolean draining() {
    return draining;
  }

  /** How long the loop may sleep: {@code syncNanos}, or less when a release hold ends earlier (at least 1 ms). */
  long nextWaitNanos(long now, long syncNanos) {
    long wait = syncNanos;
    for (long until : holdUntil.values()) {
      wait = Math.min(wait, Math.max(1_000_000L, until - now + 1_000_000L));
    }
    return wait;
  }

  boolean isEmpty() {
    return owned.isEmpty();
  }

  int size() {
    return owned.size();
  }

  boolean anyConfirmed() {
    return count(State.CONFIRMED) > 0;
  }

  /** The state of {@code unit}, or null if not owned. */
  State state(String unit) {
    Owned o = owned.get(unit);
    return o == null ? null : o.state;
  }

  /** Owned units and their tokens, in claim order; a snapshot. */
  Map<String, Long> assigned() {
    Map<String, Long> out = new LinkedHashMap<>();
    owned.forEach((u, o) -> out.put(u, o.token));
    return Collections.unmodifiableMap(out);
  }

  /** Units on release hold; a snapshot (for tests). */
  Set<String> held() {
    return Set.copyOf(holdUntil.keySet());
  }

  /** How long after its last refusal {@code unit} is a candidate again: doubling per refusal, at most 4 x. */
  private long retryAfter(String unit) {
    int n = refusals.getOrDefault(unit, 1);
    return retryRefusedNanos * Math.min(1L << Math.min(n - 1, 30), MAX_BACKOFF);
  }

  /** The owned run of {@code unit} if its token is {@code token}, else null. */
  private Owned run(String unit, long token) {
    Owned o = owned.get(unit);
    return o != null && o.token == token ? o : null;
  }

  /** RUNNING &rarr; STOPPING for {@code why}; returns the stop to emit. */
  private static UnitStop stop(Owned o, StopReason why) {
    o.state = State.STOPPING;
    o.stop = why;
    return new UnitStop(o.unit, o.token, why);
  }

  /**
   * REASSIGNED stops not released yet (unconfirmed, or confirmed and waiting for the releaser): the handoffs in
   * flight that {@code maxMoves} limits. Counting the confirmed ones too paces the stops by the releases, so a unit
   * never waits stopped behind a queue of releases (measured by {@code bench handoff}: with only the unconfirmed ones
   * counted, a member drained at once and the gap between stop and next start grew to the length of its queue).
   */
  private int movesInFlight() {
    int n = 0;
    for (Owned o : owned.values()) {
      if (o.state != State.RUNNING && o.stop == StopReason.REASSIGNED) {
        n++;
      }
    }
    return n;
  }

  private int count(State s) {
    int n = 0;
    for (Owned o : owned.values()) {
      if (o.state == s) {
        n++;
      }
    }
    return n;
  }

  /** The cost of {@code unit}, at least 1 (a cost function that fails or answers less counts 1). */
  private int unitCost(String unit) {
    try {
      return Math.max(1, cost.applyAsInt(unit));
    } catch (RuntimeException e) {
      return 1;
    }
  }
}
