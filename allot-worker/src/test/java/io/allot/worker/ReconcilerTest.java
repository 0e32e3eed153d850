package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.worker.Reconciler.Claimed;
import io.allot.worker.Reconciler.Plan;
import io.allot.worker.Reconciler.Released;
import io.allot.worker.Reconciler.State;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The reconciler's decisions, one rule at a time: no threads, no store, time passed by hand (ns). */
class ReconcilerTest {
  private static final long MS = 1_000_000L;
  private static final long HOLD = 30_000 * MS;
  private static final long RETRY = 250 * MS;
  private long token = 100;

  private Reconciler reconciler(int capacity, int maxMoves) {
    return new Reconciler(capacity, maxMoves, HOLD, RETRY);
  }

  /** Claims everything the plan asks for, granted. */
  private Plan roundGranted(Reconciler r, List<String> target, long now) {
    Plan p = r.plan(target, true, now);
    for (String u : p.claims()) {
      assertThat(r.claimed(u, OptionalLong.of(++token), true, now)).isEqualTo(Claimed.STARTED);
    }
    return p;
  }

  @Test
  void claimsTheTargetInOrderInBatchesOfMaxMoves() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 2);
    Plan p = roundGranted(r, List.of("a", "b", "c", "d", "e"), 0);
    assertThat(p.claims()).containsExactly("a", "b");
    assertThat(p.again()).isTrue();
    p = roundGranted(r, List.of("a", "b", "c", "d", "e"), 0);
    assertThat(p.claims()).containsExactly("c", "d");
    p = roundGranted(r, List.of("a", "b", "c", "d", "e"), 0);
    assertThat(p.claims()).containsExactly("e");
    assertThat(p.again()).isFalse();
    assertThat(r.assigned().keySet()).containsExactly("a", "b", "c", "d", "e");
    assertThat(r.plan(List.of("a", "b", "c", "d", "e"), true, 0)).isEqualTo(new Plan(List.of(), List.of(), false));
  }

  @Test
  void neverBeyondCapacity() {
    Reconciler r = reconciler(2, 16);
    Plan p = roundGranted(r, List.of("a", "b", "c"), 0);
    assertThat(p.claims()).containsExactly("a", "b");
    assertThat(r.plan(List.of("a", "b", "c"), true, 0).claims()).isEmpty();
    // a grant beyond capacity (the answer of an older plan) is given back
    assertThat(r.claimed("c", OptionalLong.of(7), true, 0)).isEqualTo(Claimed.GIVE_BACK);
    assertThat(r.size()).isEqualTo(2);
  }

  @Test
  void nothingIsClaimedWhileDrainingOrWithoutAValidLease() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    assertThat(r.plan(List.of("a"), false, 0).claims()).isEmpty();
    r.draining(true);
    assertThat(r.plan(List.of("a"), true, 0).claims()).isEmpty();
    assertThat(r.claimed("a", OptionalLong.of(1), true, 0)).isEqualTo(Claimed.GIVE_BACK);
    r.draining(false);
    assertThat(r.plan(List.of("a"), true, 0).claims()).containsExactly("a");
    assertThat(r.claimed("a", OptionalLong.of(1), false, 0)).as("fenced or cancelled meanwhile")
        .isEqualTo(Claimed.GIVE_BACK);
  }

  /** The units of some stops. */
  private static List<String> units(List<UnitStop> stops) {
    return stops.stream().map(UnitStop::unit).toList();
  }

  private static long token(Reconciler r, String unit) {
    return r.assigned().get(unit);
  }

  @Test
  void whatLeavesTheTargetIsStoppedAtMostMaxMovesAtATime() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 2);
    List<String> all = List.of("a", "b", "c", "d", "e");
    while (roundGranted(r, all, 0).again()) { }
    Plan p = r.plan(List.of("e"), true, 0);
    assertThat(p.stops()).containsExactly(new UnitStop("a", token(r, "a"), StopReason.REASSIGNED),
        new UnitStop("b", token(r, "b"), StopReason.REASSIGNED));
    assertThat(r.plan(List.of("e"), true, 0).stops()).as("two are stopping-unconfirmed").isEmpty();
    assertThat(r.confirmStop("a", token(r, "a"))).isTrue();
    assertThat(r.confirmStop("a", token(r, "a"))).isFalse();
    assertThat(r.plan(List.of("e"), true, 0).stops()).as("a move counts until its release").isEmpty();
    assertThat(r.confirmed()).extracting(o -> o.unit).containsExactly("a");
    assertThat(r.released(r.confirmed().get(0))).isTrue();
    assertThat(units(r.plan(List.of("e"), true, 0).stops())).containsExactly("c");
    assertThat(r.assigned().keySet()).containsExactly("b", "c", "d", "e");
    assertThat(r.state("b")).isEqualTo(State.STOPPING);
    assertThat(r.state("d")).isEqualTo(State.RUNNING);
  }

  @Test
  void aStoppingUnitBackInTheTargetIsNeitherClaimedNorStartedAgain() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    roundGranted(r, List.of("a"), 0);
    assertThat(units(r.plan(List.of(), true, 0).stops())).containsExactly("a");
    Plan p = r.plan(List.of("a"), true, 0);
    assertThat(p.claims()).isEmpty();
    assertThat(p.stops()).isEmpty();
    assertThat(r.claimed("a", OptionalLong.of(9), true, 0)).isEqualTo(Claimed.GIVE_BACK);
    assertThat(r.state("a")).isEqualTo(State.STOPPING);
  }

  @Test
  void aRefusedClaimIsRetriedAfterAWhileOrWhenItsReleaseIsAnnounced() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    assertThat(r.plan(List.of("a", "b"), true, 0).claims()).containsExactly("a", "b");
    assertThat(r.claimed("a", OptionalLong.empty(), true, 0)).isEqualTo(Claimed.REFUSED);
    assertThat(r.claimed("b", OptionalLong.empty(), true, 0)).isEqualTo(Claimed.REFUSED);
    assertThat(r.plan(List.of("a", "b"), true, 10 * MS).claims()).isEmpty();
    assertThat(r.releaseAnnounced("b")).isTrue();
    assertThat(r.releaseAnnounced("zzz")).as("not waited for").isFalse();
    assertThat(r.plan(List.of("a", "b"), true, 20 * MS).claims()).containsExactly("b");
    assertThat(r.plan(List.of("a", "b"), true, RETRY).claims()).containsExactly("a", "b");
  }

  /**
   * The store refused a claim just before the unit's release, and the release announcement overtook the refusal's
   * answer: the unit is a candidate again at once, not after {@code RETRY} (which made some handoffs wait 250 ms).
   */
  @Test
  void aReleaseAnnouncedWhileItsRefusedClaimWasInFlightIsClaimedAgainAtOnce() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    assertThat(r.plan(List.of("a", "b"), true, 0).claims()).containsExactly("a", "b");
    assertThat(r.releaseAnnounced("a")).isTrue(); // arrives before the answer of the claim batch
    assertThat(r.claimed("a", OptionalLong.empty(), true, 0)).isEqualTo(Claimed.REFUSED);
    assertThat(r.claimed("b", OptionalLong.empty(), true, 0)).isEqualTo(Claimed.REFUSED);
    assertThat(r.plan(List.of("a", "b"), true, MS).claims()).containsExactly("a");
    assertThat(r.claimed("a", OptionalLong.empty(), true, MS)).as("another member was faster")
        .isEqualTo(Claimed.REFUSED);
    assertThat(r.plan(List.of("a", "b"), true, 2 * MS).claims()).as("no second retry without a new announcement")
        .isEmpty();
  }

  /** The timed retry of a refused claim is a fallback (the release is announced): it backs off, up to 4 x. */
  @Test
  void repeatedRefusalsBackOffUpToFourTimesTheRetryAndAnAnnouncementEndsTheBackOff() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    List<String> t = List.of("a");
    long now = 0;
    long[] waits = {RETRY, 2 * RETRY, 4 * RETRY, 4 * RETRY};
    assertThat(r.plan(t, true, now).claims()).containsExactly("a");
    for (long wait : waits) {
      r.claimed("a", OptionalLong.empty(), true, now);
      assertThat(r.plan(t, true, now + wait - 1).claims()).isEmpty();
      now += wait;
      assertThat(r.plan(t, true, now).claims()).containsExactly("a");
    }
    r.claimed("a", OptionalLong.empty(), true, now);
    assertThat(r.releaseAnnounced("a")).isTrue();
    assertThat(r.plan(t, true, now).claims()).containsExactly("a");
    r.claimed("a", OptionalLong.empty(), true, now); // another member was faster: the back-off starts again
    assertThat(r.plan(t, true, now + RETRY).claims()).containsExactly("a");
  }

  @Test
  void releasedUnitsAreClaimedBeforeTheRestOfTheTarget() {
    Reconciler r = new Reconciler(Integer.MAX_VALUE, 16, 2, HOLD, RETRY);
    List<String> target = List.of("a", "b", "c", "d", "e");
    assertThat(r.plan(target, true, 0).claims()).containsExactly("a", "b");
    r.claimed("a", OptionalLong.empty(), true, 0);
    r.claimed("b", OptionalLong.empty(), true, 0);
    r.releaseAnnounced("e");
    r.releaseAnnounced("b");
    Plan p = r.plan(target, true, MS);
    assertThat(p.claims()).containsExactly("e", "b");
    assertThat(p.again()).isTrue();
    assertThat(r.claimed("e", OptionalLong.of(++token), true, MS)).isEqualTo(Claimed.STARTED);
    assertThat(r.claimed("b", OptionalLong.of(++token), true, MS)).isEqualTo(Claimed.STARTED);
    assertThat(r.plan(target, true, MS).claims()).as("a was refused just now").containsExactly("c", "d");
    assertThat(r.releaseAnnounced("a")).isTrue();
    r.forgetAll();
    assertThat(r.plan(target, false, 2 * MS).claims()).as("fenced: nothing, announced or not").isEmpty();
  }

  @Test
  void aReleaseGoesThroughTheStoppingStateAndIsReleasedWithTheHoldOnceConfirmed() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 1);
    while (roundGranted(r, List.of("a", "b", "c"), 0).again()) { }
    long a = token(r, "a");
    assertThat(r.release("a", a - 1, 0)).as("another run's token").isEqualTo(Released.NOT_OWNED);
    assertThat(r.state("a")).isEqualTo(State.RUNNING);
    assertThat(r.release("a", a, 0)).isEqualTo(Released.WAS_RUNNING);
    assertThat(r.state("a")).as("the application confirms first").isEqualTo(State.STOPPING);
    assertThat(r.confirmed()).isEmpty();
    assertThat(r.release("a", a, 0)).isEqualTo(Released.WAS_STOPPED);
    // a release is not a move: the REASSIGNED stops still get their maxMoves
    assertThat(units(r.plan(List.of("a"), true, 0).stops())).containsExactly("b");
    assertThat(r.confirmStop("a", a)).isTrue();
    assertThat(r.confirmed()).singleElement().satisfies(o -> {
      assertThat(o.unit).isEqualTo("a");
      assertThat(o.hold).as("released with the hold").isTrue();
    });
    assertThat(r.confirmStop("b", token(r, "b"))).isTrue();
    assertThat(r.confirmed()).extracting(o -> o.hold).containsExactly(true, false);
  }

  @Test
  void aLateConfirmationOfAnEarlierRunChangesNothing() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    roundGranted(r, List.of("a"), 0);
    long first = token(r, "a");
    r.plan(List.of(), true, 0); // REASSIGNED: the application is slow to stop it
    assertThat(r.forgetAll()).containsExactly(new UnitStop("a", first, StopReason.LEASE_LOST)); // fenced meanwhile
    roundGranted(r, List.of("a"), 0); // registered again, claimed again: a second run
    long second = token(r, "a");
    assertThat(second).isNotEqualTo(first);
    assertThat(r.plan(List.of(), true, 0).stops()).containsExactly(new UnitStop("a", second, StopReason.REASSIGNED));

    assertThat(r.confirmStop("a", first)).as("the first run's confirmation, late").isFalse();
    assertThat(r.release("a", first, 0)).isEqualTo(Released.NOT_OWNED);
    assertThat(r.state("a")).isEqualTo(State.STOPPING);
    assertThat(r.confirmed()).isEmpty();
    assertThat(r.confirmStop("a", second)).isTrue();
  }

  @Test
  void aReleasedUnitIsHeldWhileInTheTargetThenClaimedAgain() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    roundGranted(r, List.of("a", "b"), 0);
    long a = token(r, "a");
    assertThat(r.release("a", a, 0)).isEqualTo(Released.WAS_RUNNING);
    assertThat(r.release("x", a, 0)).isEqualTo(Released.NOT_OWNED);
    assertThat(r.confirmStop("a", a)).isTrue();
    r.released(r.confirmed().get(0));
    assertThat(r.plan(List.of("a", "b"), true, 1_000 * MS).claims()).isEmpty();
    assertThat(r.nextWaitNanos(1_000 * MS, 500 * MS)).isEqualTo(500 * MS);
    assertThat(r.nextWaitNanos(HOLD - 100 * MS, 500 * MS)).isEqualTo(101 * MS);
    assertThat(r.claimed("a", OptionalLong.of(5), true, 0)).as("held").isEqualTo(Claimed.GIVE_BACK);
    assertThat(r.plan(List.of("a", "b"), true, HOLD).claims()).containsExactly("a");
  }

  @Test
  void aHoldEndsWhenTheUnitLeavesTheTarget() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    roundGranted(r, List.of("a"), 0);
    r.release("a", token(r, "a"), 0);
    r.confirmStop("a", token(r, "a"));
    r.released(r.confirmed().get(0));
    assertThat(r.held()).containsExactly("a");
    r.plan(List.of(), true, MS);
    assertThat(r.held()).isEmpty();
    assertThat(r.plan(List.of("a"), true, 2 * MS).claims()).containsExactly("a");
  }

  /**
   * The loop passes the same target list again until it reads the target again, and the reconciler then reuses
   * what it derived from it (the set, the wanted units, whether any running unit is outside it): every change that
   * matters still shows in the next plan. Each step with one list instance throughout.
   */
  @Test
  void theSameTargetListAgainStillSeesEveryChange() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    List<String> target = List.of("a", "b", "c");
    assertThat(roundGranted(r, target, 0).claims()).containsExactly("a", "b", "c");
    assertThat(r.plan(target, true, 0)).isEqualTo(new Plan(List.of(), List.of(), false));

    // a hold ends: wanted again
    long a = token(r, "a");
    r.release("a", a, 0);
    r.confirmStop("a", a);
    r.released(r.confirmed().get(0));
    assertThat(r.plan(target, true, MS).claims()).as("held").isEmpty();
    assertThat(roundGranted(r, target, HOLD).claims()).containsExactly("a");

    // a grant outside the target (the answer to an older plan): stopped by the next plan
    assertThat(r.claimed("x", OptionalLong.of(++token), true, HOLD)).isEqualTo(Claimed.STARTED);
    assertThat(units(r.plan(target, true, HOLD).stops())).containsExactly("x");

    // a refusal, then its release announced: claimed first
    r.forgetAll();
    Plan p = r.plan(target, true, HOLD);
    assertThat(p.claims()).as("a fence forgot everything: all wanted again").containsExactly("a", "b", "c");
    r.claimed("a", OptionalLong.of(++token), true, HOLD);
    r.claimed("b", OptionalLong.empty(), true, HOLD);
    r.claimed("c", OptionalLong.empty(), true, HOLD);
    assertThat(r.plan(target, true, HOLD + MS).claims()).as("refused a moment ago").isEmpty();
    assertThat(r.releaseAnnounced("c")).isTrue();
    assertThat(r.releaseAnnounced("a")).as("owned: not awaited").isFalse();
    assertThat(r.plan(target, true, HOLD + MS).claims()).containsExactly("c");
  }

  @Test
  void aFenceStopsWhatIsNotConfirmedAndForgetsEverything() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    roundGranted(r, List.of("a", "b", "c", "d"), 0);
    long a = token(r, "a");
    r.plan(List.of("b", "c", "d"), true, 0); // a: STOPPING
    r.release("b", token(r, "b"), 0);
    r.confirmStop("b", token(r, "b")); // b: CONFIRMED (released by the application)
    r.release("d", token(r, "d"), 0); // d: STOPPING, not confirmed yet
    assertThat(units(r.forgetAll())).containsExactly("a", "c", "d");
    assertThat(r.isEmpty()).isTrue();
    assertThat(r.confirmStop("a", a)).isFalse();
  }

  @Test
  void shutdownStopsEveryRunningUnitOnce() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    roundGranted(r, List.of("a", "b"), 0);
    r.plan(List.of("b"), true, 0);
    assertThat(r.stopAll()).containsExactly(new UnitStop("b", token(r, "b"), StopReason.SHUTDOWN));
    assertThat(r.stopAll()).isEmpty();
    assertThat(r.anyConfirmed()).isFalse();
    r.confirmStop("a", token(r, "a"));
    assertThat(r.anyConfirmed()).isTrue();
  }

  @Test
  void aReleaseOfAnOlderOwnedRecordDoesNotForgetTheNewOne() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 16);
    roundGranted(r, List.of("a"), 0);
    r.stopAll();
    r.confirmStop("a", token(r, "a"));
    Reconciler.Owned confirmed = r.confirmed().get(0);
    r.forgetAll(); // fenced while the release was in flight
    roundGranted(r, List.of("a"), 0); // re-registered and claimed again
    assertThat(r.released(confirmed)).isFalse();
    assertThat(r.assigned()).containsKey("a");
  }

  @Test
  void claimsGoInBatchesOfClaimBatchWhileStopsStayPacedByMaxMoves() {
    Reconciler r = new Reconciler(Integer.MAX_VALUE, 2, 5, HOLD, RETRY);
    Reconciler.Plan p = r.plan(java.util.List.of("a", "b", "c", "d", "e", "f", "g"), true, 0);
    assertThat(p.claims()).containsExactly("a", "b", "c", "d", "e");
    assertThat(p.again()).isTrue();
  }

  @Test
  void withCostsTheOwnedUnitsAlsoThoseStoppingNeverCostMoreThanTheCapacity() {
    java.util.Map<String, Integer> costs = java.util.Map.of("a", 3, "c", 2);
    Reconciler r = new Reconciler(4, 8, 8, HOLD, RETRY, u -> costs.getOrDefault(u, 1));
    Plan p = r.plan(List.of("a", "b", "c"), true, 0);
    assertThat(p.claims()).as("c (2) does not fit after a (3) and b (1)").containsExactly("a", "b");
    assertThat(r.claimed("a", OptionalLong.of(1), true, 0)).isEqualTo(Claimed.STARTED);
    assertThat(r.claimed("b", OptionalLong.of(2), true, 0)).isEqualTo(Claimed.STARTED);
    assertThat(r.claimed("c", OptionalLong.of(3), true, 0)).as("a grant beyond the capacity is given back")
        .isEqualTo(Claimed.GIVE_BACK);
    // a leaves the target: while it stops it still counts, so c waits
    assertThat(r.plan(List.of("b", "c"), true, 0).claims()).isEmpty();
    assertThat(r.confirmStop("a", 1)).isTrue();
    assertThat(r.plan(List.of("b", "c"), true, 0).claims()).isEmpty();
    assertThat(r.released(r.confirmed().get(0))).isTrue();
    assertThat(r.plan(List.of("b", "c"), true, 0).claims()).containsExactly("c");
    assertThat(r.claimed("c", OptionalLong.of(4), true, 0)).isEqualTo(Claimed.STARTED);
  }
  @Test
  void aGrantStartsAWantedUnitAndAStaleOrUnwantedOneDoesNot() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 4);
    List<String> target = List.of("a", "b");
    r.plan(target, true, 0);
    assertThat(r.granted("a", 10, true)).isEqualTo(Claimed.STARTED);
    assertThat(r.assigned()).containsEntry("a", 10L);
    assertThat(r.granted("a", 10, true)).as("the same grant again").isEqualTo(Claimed.KEPT);
    assertThat(r.claimed("a", OptionalLong.of(10), true, 0)).as("a claim in flight answered with the granted run")
        .isEqualTo(Claimed.KEPT);
    assertThat(r.assigned()).containsEntry("a", 10L);
    assertThat(r.granted("x", 11, true)).as("not in the target").isEqualTo(Claimed.GIVE_BACK);
    assertThat(r.granted("x", 11, true)).as("given back already").isEqualTo(Claimed.KEPT);
    assertThat(r.granted("b", 12, false)).as("may not run").isEqualTo(Claimed.GIVE_BACK);
    assertThat(r.claimed("b", OptionalLong.of(12), true, 0)).as("a claim answered with a token given back")
        .isEqualTo(Claimed.GIVE_BACK);

    // a's run is stopped and released: its grant announced again (late, reordered) is stale
    r.plan(List.of("b"), true, 0);
    assertThat(r.confirmStop("a", 10)).isTrue();
    r.released(r.confirmed().get(0));
    r.plan(target, true, 0);
    assertThat(r.granted("a", 10, true)).as("stale").isEqualTo(Claimed.KEPT);
    assertThat(r.assigned()).doesNotContainKey("a");
    assertThat(r.granted("a", 13, true)).as("a newer grant").isEqualTo(Claimed.STARTED);
    assertThat(r.giveBackUntracked("a", 13)).as("tracked").isFalse();
    assertThat(r.giveBackUntracked("b", 14)).as("owned by this session, not tracked").isTrue();
    assertThat(r.granted("b", 14, true)).as("its announcement after the give-back").isEqualTo(Claimed.KEPT);
  }

  /**
   * A joining member hears the old owners' grants before its own table read: a grant outside the target read last is
   * deferred (kept, not started, not marked seen), and decided against the next target: started if the new target
   * wants it, given back if it still does not. Before, it was given back at once, and the member claimed the unit
   * again after its read (the join's tail in {@code bench handoff}).
   */
  @Test
  void aGrantOutsideAnOldTargetWaitsForTheNextTargetRead() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 4);
    r.plan(List.of("a"), true, 0);
    assertThat(r.granted("b", 20, true, false)).as("the table may have moved b here").isEqualTo(Claimed.DEFER);
    assertThat(r.granted("c", 21, true, false)).isEqualTo(Claimed.DEFER);
    assertThat(r.assigned()).doesNotContainKeys("b", "c");

    r.target(List.of("a", "b")); // the next read: b is wanted now, c is not
    assertThat(r.granted("b", 20, true, false)).isEqualTo(Claimed.STARTED);
    assertThat(r.granted("c", 21, true, true)).as("still not wanted after a fresh read").isEqualTo(Claimed.GIVE_BACK);
    assertThat(r.assigned()).containsEntry("b", 20L).doesNotContainKey("c");
    Reconciler.Plan p = r.plan(List.of("a", "b"), true, 0);
    assertThat(p.claims()).as("b is not claimed again").doesNotContain("b");
  }

  /**
   * Settling a claim in doubt releases a run the session owns but does not run; a grant of that very run can start it
   * on the listener's thread at any time. The check and the mark are one step: a grant started first is never
   * released, and a grant after the mark (also a deferred one) is ignored. allot-sim seed 7013 (6001-7500 x 5,000
   * steps, with deferred grants) found the release of a granted run that then started.
   */
  @Test
  void aClaimInDoubtIsReleasedOnlyIfItsRunWasNeverStartedAndItsGrantIsIgnoredAfter() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 4);
    r.plan(List.of("a", "b"), true, 0);
    assertThat(r.granted("a", 30, true, false)).isEqualTo(Claimed.STARTED);
    assertThat(r.markGivenBack("a", 30)).as("started by its grant first: never released").isFalse();

    assertThat(r.markGivenBack("b", 31)).isTrue();
    assertThat(r.markGivenBack("b", 31)).as("again, after a release that did not reach the store").isTrue();
    assertThat(r.granted("b", 31, true, false)).as("its grant after the mark").isEqualTo(Claimed.KEPT);
    assertThat(r.granted("b", 31, true, true)).isEqualTo(Claimed.KEPT);
    assertThat(r.assigned()).containsOnlyKeys("a");
  }

  @Test
  void aRunStartedHereIsNeverGivenBackAfterAFence() {
    Reconciler r = reconciler(Integer.MAX_VALUE, 4);
    r.plan(List.of("a"), true, 0);
    assertThat(r.granted("a", 10, true)).isEqualTo(Claimed.STARTED);
    r.forgetAll(); // fenced: the application may still be stopping a's run, which only its lease may free
    r.plan(List.of("a"), false, 0);
    // a claim sent before the grant, answered after the fence, with the granted run's token
    assertThat(r.claimed("a", OptionalLong.of(10), false, 0)).isEqualTo(Claimed.KEPT);
    assertThat(r.giveBackUntracked("a", 10)).isFalse();
    assertThat(r.granted("a", 10, true)).as("and its grant again is stale").isEqualTo(Claimed.KEPT);
  }
}
