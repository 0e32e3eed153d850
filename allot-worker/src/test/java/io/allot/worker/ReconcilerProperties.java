package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.testing.Tries;
import io.allot.worker.Reconciler.Claimed;
import io.allot.worker.Reconciler.Plan;
import io.allot.worker.Reconciler.Released;
import io.allot.worker.Reconciler.State;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

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
 * The histories come from {@link Tries}: scripted edge histories first (each with the smallest and largest capacity,
 * move limit and hold), then random ones from seeds; a failure prints the seed, the history and the shortest failing
 * history found by dropping steps.
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

  /** A history and the member's settings. */
  record Case(List<Op> history, int capacity, int maxMoves, int holdMillis) {
    @Override
    public String toString() {
      StringBuilder b = new StringBuilder("capacity=" + capacity + " maxMoves=" + maxMoves + " holdMillis=" + holdMillis
          + ", " + history.size() + " steps:");
      history.forEach(op -> b.append("\n  ").append(op));
      return b.toString();
    }
  }

  static Op randomOp(Random r) {
    return switch (Tries.weighted(r, 3, 8, 4, 1, 4, 1, 1, 1, 3, 1, 2, 2)) {
      case 0 -> new SetTarget(randomTarget(r));
      case 1 -> new Round(Tries.between(r, 0, 255), r.nextInt(4) != 0); // mayRun 3 times in 4
      case 2 -> new Confirm(Tries.between(r, 0, 7));
      case 3 -> new AppRelease(Tries.between(r, 0, 7));
      case 4 -> new StoreRelease();
      case 5 -> new Fence();
      case 6 -> new Drain(r.nextBoolean());
      case 7 -> new LeaseDoubt(r.nextInt(3) != 0); // valid 2 times in 3
      case 8 -> new Advance(Tries.between(r, 1, 400));
      case 9 -> new Announce(Tries.between(r, 0, 7));
      case 10 -> new StrayGrant(Tries.between(r, 0, 7));
      default -> new LateConfirm(Tries.between(r, 0, 63), r.nextBoolean());
    };
  }

  /** 0 to 8 distinct units in any order. */
  static List<String> randomTarget(Random r) {
    List<String> units = new ArrayList<>(UNITS);
    Collections.shuffle(units, r);
    return List.copyOf(units.subList(0, Tries.between(r, 0, UNITS.size())));
  }

  static Case randomCase(Random r) {
    int steps = Tries.between(r, 1, 80);
    List<Op> history = new ArrayList<>();
    for (int i = 0; i < steps; i++) {
      history.add(randomOp(r));
    }
    return new Case(history, Tries.between(r, 0, 6), Tries.between(r, 1, 4), Tries.between(r, 0, 1000));
  }

  /**
   * Scripted histories: every kind of step alone at its extremes, and three that go through claims and moves, releases
   * with holds, and fences, drains and doubts; each with the extreme settings.
   */
  static List<Case> edgeCases() {
    List<List<Op>> histories = new ArrayList<>();
    for (Op op : List.of(new SetTarget(UNITS), new SetTarget(List.of()), new Round(0, true), new Round(255, false),
        new Confirm(7), new AppRelease(7), new StoreRelease(), new Fence(), new Drain(true), new LeaseDoubt(false),
        new Advance(400), new Announce(7), new StrayGrant(0), new StrayGrant(7), new LateConfirm(63, true))) {
      histories.add(List.of(op));
    }
    histories.add(List.of(new SetTarget(UNITS), new Round(255, true), new Round(255, true), new SetTarget(List.of()),
        new Round(0, true), new Confirm(0), new Confirm(0), new StoreRelease(), new Advance(400), new SetTarget(UNITS),
        new Round(255, true), new Round(0, true), new StoreRelease(), new LateConfirm(0, false),
        new LateConfirm(1, true)));
    histories.add(List.of(new SetTarget(List.of("u0", "u1", "u2")), new Round(255, true), new AppRelease(0),
        new Confirm(0), new StoreRelease(), new Advance(1), new Round(255, true), new Advance(400), new Round(255, true),
        new Announce(1), new StrayGrant(2), new StrayGrant(6), new SetTarget(List.of("u2")), new Round(255, true),
        new AppRelease(1), new Confirm(0), new Confirm(0), new StoreRelease()));
    histories.add(List.of(new SetTarget(UNITS), new Round(255, false), new Drain(true), new Round(255, true),
        new Drain(false), new LeaseDoubt(false), new Round(255, true), new StrayGrant(3), new LeaseDoubt(true),
        new Round(255, true), new Fence(), new LateConfirm(63, true), new LateConfirm(2, false), new Round(255, true)));
    List<Case> out = new ArrayList<>();
    for (List<Op> h : histories) {
      for (int capacity : new int[] {0, 6}) {
        for (int maxMoves : new int[] {1, 4}) {
          for (int hold : new int[] {0, 1000}) {
            out.add(new Case(h, capacity, maxMoves, hold));
          }
        }
      }
    }
    return out;
  }

  /** Smaller cases: halves, quarters ... and single steps of the history dropped, then smaller settings. */
  static List<Case> smaller(Case c) {
    List<Case> out = new ArrayList<>();
    List<Op> h = c.history();
    for (int chunk = h.size() / 2; chunk >= 1; chunk /= 2) {
      for (int from = 0; from + chunk <= h.size(); from += chunk) {
        if (h.size() - chunk >= 1) {
          List<Op> shorter = new ArrayList<>(h.subList(0, from));
          shorter.addAll(h.subList(from + chunk, h.size()));
          out.add(new Case(shorter, c.capacity(), c.maxMoves(), c.holdMillis()));
        }
      }
    }
    if (c.capacity() > 0) {
      out.add(new Case(h, c.capacity() - 1, c.maxMoves(), c.holdMillis()));
    }
    if (c.maxMoves() > 1) {
      out.add(new Case(h, c.capacity(), c.maxMoves() - 1, c.holdMillis()));
    }
    if (c.holdMillis() > 0) {
      out.add(new Case(h, c.capacity(), c.maxMoves(), 0));
    }
    return out;
  }

  @Test
  void theRulesHoldInEveryHistory() {
    Tries.forAll(2000, edgeCases(), ReconcilerProperties::randomCase, ReconcilerProperties::smaller,
        c -> theRulesHoldInEveryHistory(c.history(), c.capacity(), c.maxMoves(), c.holdMillis()));
  }

  private void theRulesHoldInEveryHistory(List<Op> history, int capacity, int maxMoves, int holdMillis) {
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
