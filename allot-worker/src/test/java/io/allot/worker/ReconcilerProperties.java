package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.worker.Reconciler.Claimed;
import io.allot.worker.Reconciler.Plan;
import io.allot.worker.Reconciler.Released;
import io.allot.worker.Reconciler.State;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * The reconciler against random histories: target changes, rounds whose claims the store grants or refuses (another
 * member holds the unit), confirmations, releases by the application, late confirmations and releases of earlier
 * runs, releases in the store, fences, drains, lease doubts and time passing. An application model runs exactly what
 * it was told to run; after every step the rules hold:
 * <ul>
 *   <li>never more than maxConcurrentMoves unconfirmed REASSIGNED stops;</li>
 *   <li>every stop names the run the application runs (its token); a confirmation or release naming an earlier run
 *   changes nothing;</li>
 *   <li>a unit is released in the store only once the application stopped it, with the hold exactly when the
 *   application released it;</li>
 *   <li>never a claim while draining or with an invalid lease; never a claim of an owned or held unit; never more
 *   than maxConcurrentMoves claims in a round;</li>
 *   <li>never more owned units than the capacity;</li>
 *   <li>a unit is never started twice: a start only for a unit the application does not run;</li>
 *   <li>the application runs only units the member owns, and a fence stops every one of them.</li>
 * </ul>
 */
class ReconcilerProperties {
  private static final long MS = 1_000_000L;
  private static final List<String> UNITS = List.of("u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7");

  sealed interface Op permits SetTarget, Round, Confirm, AppRelease, StoreRelease, Fence, Drain, LeaseDoubt, Advance,
      Announce, StrayGrant, LateConfirm {}

  record SetTarget(List<String> units) implements Op {}

  /** A round; bit i of {@code grants} says whether the store grants the i-th claim; {@code mayRun}: not fenced meanwhile. */
  record Round(int grants, boolean mayRun) implements Op {}

  record Confirm(int pick) implements Op {}

  record AppRelease(int pick) implements Op {}

  record StoreRelease() implements Op {}

  record Fence() implements Op {}

  record Drain(boolean on) implements Op {}

  record LeaseDoubt(boolean valid) implements Op {}

  record Advance(int millis) implements Op {}

  record Announce(int pick) implements Op {}

  /** A granted claim's answer for any unit, e.g. a duplicate or late answer of an earlier round's batch. */
  record StrayGrant(int pick) implements Op {}

  /** A confirmation (or a release) of an earlier, ended run of a unit, arriving late. */
  record LateConfirm(int pick, boolean release) implements Op {}

  @Provide
  Arbitrary<List<Op>> histories() {
    Arbitrary<Op> setTarget = Arbitraries.of(UNITS).list().uniqueElements().ofMaxSize(UNITS.size()).map(SetTarget::new);
    Arbitrary<Op> round = Arbitraries.integers().between(0, 255)
        .flatMap(g -> Arbitraries.of(true, true, true, false).map(m -> new Round(g, m)));
    Arbitrary<Op> confirm = Arbitraries.integers().between(0, 7).map(Confirm::new);
    Arbitrary<Op> appRelease = Arbitraries.integers().between(0, 7).map(AppRelease::new);
    Arbitrary<Op> announce = Arbitraries.integers().between(0, 7).map(Announce::new);
    Arbitrary<Op> stray = Arbitraries.integers().between(0, 7).map(StrayGrant::new);
    Arbitrary<Op> late = Arbitraries.integers().between(0, 63)
        .flatMap(i -> Arbitraries.of(true, false).map(rel -> new LateConfirm(i, rel)));
    Arbitrary<Op> storeRelease = Arbitraries.just(new StoreRelease());
    Arbitrary<Op> fence = Arbitraries.just(new Fence());
    Arbitrary<Op> drain = Arbitraries.of(true, false).map(Drain::new);
    Arbitrary<Op> doubt = Arbitraries.of(true, true, false).map(LeaseDoubt::new);
    Arbitrary<Op> advance = Arbitraries.integers().between(1, 400).map(Advance::new);
    @SuppressWarnings("unchecked")
    Arbitrary<Op> op = Arbitraries.frequencyOf(
        Tuple.of(3, setTarget), Tuple.of(8, round), Tuple.of(4, confirm), Tuple.of(1, appRelease),
        Tuple.of(4, storeRelease), Tuple.of(1, fence), Tuple.of(1, drain), Tuple.of(1, doubt), Tuple.of(3, advance),
        Tuple.of(1, announce), Tuple.of(2, stray), Tuple.of(2, late));
    return op.list().ofMinSize(1).ofMaxSize(80);
  }

  @Property(tries = 400)
  void theRulesHoldInEveryHistory(@ForAll("histories") List<Op> history,
      @ForAll @IntRange(min = 0, max = 6) int capacity, @ForAll @IntRange(min = 1, max = 4) int maxMoves,
      @ForAll @IntRange(min = 0, max = 1000) int holdMillis) {
    new Model(capacity, maxMoves, holdMillis * MS).run(history);
  }

  /** The member's surroundings: the store, the application, the clock. */
  private static final class Model {
    final int capacity;
    final int maxMoves;
    final Reconciler r;
    long now = 0;
    long nextToken = 1;
    List<String> target = List.of();
    boolean leaseValid = true;
    boolean draining = false;
    /** Units another member holds in the store: claims of them are refused. */
    final Set<String> heldElsewhere = new HashSet<>(Set.of("u6", "u7"));
    /** What the application runs right now: unit -> the token of the run. */
    final Map<String, Long> running = new LinkedHashMap<>();
    /** Stops (REASSIGNED, RELEASED) the application has not confirmed yet, by unit. */
    final Map<String, UnitStop> pendingStops = new LinkedHashMap<>();
    /** Runs the application released (unit -> token), until released in the store or forgotten. */
    final Map<String, Long> appReleased = new HashMap<>();
    /** Runs that ended (forgotten by a fence, released in the store): their confirmations may still come late. */
    final List<UnitStop> ended = new ArrayList<>();

    Model(int capacity, int maxMoves, long holdNanos) {
      this.capacity = capacity;
      this.maxMoves = maxMoves;
      this.r = new Reconciler(capacity, maxMoves, holdNanos, 250 * MS);
    }

    void run(List<Op> history) {
      for (Op op : history) {
        step(op);
        invariants();
      }
    }

    void step(Op op) {
      if (op instanceof SetTarget t) {
        target = t.units();
      } else if (op instanceof Round round) {
        round(round);
      } else if (op instanceof Confirm c) {
        pick(pendingStops.keySet(), c.pick()).ifPresent(u -> {
          UnitStop stop = pendingStops.remove(u);
          assertThat(running.remove(u)).as("the application stops the run first").isEqualTo(stop.token());
          assertThat(r.confirmStop(u, stop.token())).as("confirm %s", stop).isTrue();
        });
      } else if (op instanceof AppRelease a) {
        pick(running.keySet(), a.pick()).ifPresent(u -> {
          long token = running.get(u);
          boolean wasStopping = pendingStops.containsKey(u);
          Released result = r.release(u, token, now); // while it runs: it stops on the RELEASED stop, then confirms
          assertThat(result).isEqualTo(wasStopping ? Released.WAS_STOPPED : Released.WAS_RUNNING);
          appReleased.put(u, token);
          if (!wasStopping) {
            pendingStops.put(u, new UnitStop(u, token, StopReason.RELEASED));
          }
        });
      } else if (op instanceof StoreRelease) {
        for (Reconciler.Owned o : r.confirmed()) {
          assertThat(running).as("released in the store while the application runs it").doesNotContainKey(o.unit);
          assertThat(o.hold).as("%s released with the hold", o).isEqualTo(appReleased.remove(o.unit, o.token));
          assertThat(r.released(o)).isTrue();
          ended.add(new UnitStop(o.unit, o.token, StopReason.REASSIGNED));
        }
      } else if (op instanceof Fence) {
        Map<String, Long> owned = r.assigned();
        for (UnitStop s : r.forgetAll()) { // LEASE_LOST
          assertThat(s.reason()).isEqualTo(StopReason.LEASE_LOST);
          assertThat(running.remove(s.unit())).as("%s names the run", s).isEqualTo(s.token());
        }
        owned.forEach((u, t) -> ended.add(new UnitStop(u, t, StopReason.LEASE_LOST)));
        pendingStops.clear();
        appReleased.clear();
        assertThat(running).as("a fence stops everything the application runs").isEmpty();
        assertThat(r.isEmpty()).isTrue();
      } else if (op instanceof LateConfirm late) {
        if (!ended.isEmpty()) {
          UnitStop old = ended.get(late.pick() % ended.size());
          State before = r.state(old.unit());
          Map<String, Long> owned = r.assigned();
          if (late.release()) {
            assertThat(r.release(old.unit(), old.token(), now)).as("late release of %s", old)
                .isEqualTo(Released.NOT_OWNED);
          } else {
            assertThat(r.confirmStop(old.unit(), old.token())).as("late confirmation of %s", old).isFalse();
          }
          assertThat(r.state(old.unit())).isEqualTo(before);
          assertThat(r.assigned()).isEqualTo(owned);
        }
      } else if (op instanceof Drain d) {
        draining = d.on();
        r.draining(draining);
      } else if (op instanceof LeaseDoubt d) {
        leaseValid = d.valid();
      } else if (op instanceof Advance a) {
        now += a.millis() * MS;
      } else if (op instanceof Announce a) {
        r.releaseAnnounced(UNITS.get(a.pick() % UNITS.size()));
      } else if (op instanceof StrayGrant g) {
        String u = UNITS.get(g.pick() % UNITS.size());
        boolean owned = r.assigned().containsKey(u);
        int size = r.size();
        long token = nextToken++;
        if (r.claimed(u, OptionalLong.of(token), leaseValid, now) == Claimed.STARTED) {
          assertThat(running).as("%s started twice", u).doesNotContainKey(u);
          assertThat(owned).as("%s started while owned", u).isFalse();
          assertThat(leaseValid && !draining && size < capacity).isTrue();
          running.put(u, token);
        }
      }
    }

    void round(Round round) {
      Map<String, Long> ownedBefore = r.assigned();
      Plan p = r.plan(target, leaseValid, now);
      Set<String> held = r.held(); // holds still running at this time (the plan drops the ones that ended)
      for (UnitStop s : p.stops()) {
        String u = s.unit();
        assertThat(s.reason()).isEqualTo(StopReason.REASSIGNED);
        assertThat(ownedBefore).containsKey(u);
        assertThat(target).doesNotContain(u);
        assertThat(running.get(u)).as("a REASSIGNED stop names the run the application runs").isEqualTo(s.token());
        assertThat(pendingStops.put(u, s)).isNull();
      }
      if (draining || !leaseValid) {
        assertThat(p.claims()).as("claims while draining or with an invalid lease").isEmpty();
      }
      assertThat(p.claims().size()).isLessThanOrEqualTo(maxMoves);
      assertThat(ownedBefore.size() + p.claims().size()).isLessThanOrEqualTo(capacity);
      assertThat(target).containsAll(p.claims());
      assertThat(p.claims()).doesNotHaveDuplicates();
      List<String> claims = new ArrayList<>(p.claims());
      for (int i = 0; i < claims.size(); i++) {
        String u = claims.get(i);
        assertThat(held).as("claim of a held unit").doesNotContain(u);
        assertThat(ownedBefore).as("claim of an owned unit").doesNotContainKey(u);
        boolean granted = (round.grants() >> i & 1) == 1 && !heldElsewhere.contains(u);
        OptionalLong token = granted ? OptionalLong.of(nextToken++) : OptionalLong.empty();
        Claimed c = r.claimed(u, token, round.mayRun() && leaseValid, now);
        if (c == Claimed.STARTED) {
          assertThat(running).as("%s started twice", u).doesNotContainKey(u);
          running.put(u, token.getAsLong());
        } else {
          assertThat(c).isEqualTo(granted ? Claimed.GIVE_BACK : Claimed.REFUSED);
        }
      }
      if (round.grants() % 5 == 0 && !claims.isEmpty()) { // now and then the other member lets go
        heldElsewhere.remove(claims.get(0));
      }
    }

    void invariants() {
      Map<String, Long> owned = r.assigned();
      assertThat(owned.size()).as("owned beyond capacity").isLessThanOrEqualTo(capacity);
      long moves = pendingStops.values().stream().filter(s -> s.reason() == StopReason.REASSIGNED).count();
      assertThat(moves).as("unconfirmed REASSIGNED stops").isLessThanOrEqualTo(maxMoves);
      assertThat(owned).as("the application runs only owned runs").containsAllEntriesOf(running);
      for (String u : owned.keySet()) {
        State s = r.state(u);
        assertThat(running.containsKey(u)).as("%s is %s", u, s).isEqualTo(s != State.CONFIRMED);
        assertThat(pendingStops.containsKey(u)).as("%s is %s", u, s).isEqualTo(s == State.STOPPING);
      }
    }

    private static java.util.Optional<String> pick(Set<String> from, int i) {
      if (from.isEmpty()) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of(new ArrayList<>(from).get(i % from.size()));
    }
  }
}
