package io.allot.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * What the simulator found in the SDK (see the README, "Found in the SDK"): with the SDK's behaviour before the fix
 * ({@link Hole#IN_DOUBT_AFTER_FENCE}, re-expressed at the store link since the real {@code ReconcileLoop} runs now) a
 * pinned seed fails, and with the fix that very seed passes; in every CI run. The window is rare (about 1 seed in
 * 1,000 of {@link SimConfig#forHole(Hole)}'s configuration, a slower network with a longer fence margin), so the
 * search for another seed is beyond the CI budget: {@code -Dallot.sim.rareHoles=true} runs it, {@code
 * -Dallot.sim.rareSeeds=N} bounds it (default 5,000).
 */
class FoundInTheSdkTest {
  /** Found by a search of seeds 1-1,332 of the configuration (the README, "It can fail"), after push handoffs changed the draws. */
  static final long PINNED = 1332;

  /**
   * {@code ReconcileLoop.settleInDoubt} read the tracked units after {@code ownersOf} without checking that the lease
   * generation was still the round's: after a self-fence meanwhile nothing is tracked any more, so it released units
   * that the fenced session did start and whose handlers were still stopping (within the fence margin), and another
   * member claimed them at once, before the old lease ran out.
   */
  @Test
  void settlingClaimsInDoubtAfterAFenceReleasedUnitsStillStoppingAndNoLongerDoes() {
    isTheWindow(HolesTest.caughtBy(PINNED, SimConfig.forHole(Hole.IN_DOUBT_AFTER_FENCE)));
  }

  /** The bonus: a search from seed 1 finds the window without the pinned seed, given the time. */
  @Test
  @EnabledIfSystemProperty(named = "allot.sim.rareHoles", matches = "true")
  void aSearchFindsTheWindowToo() {
    SimConfig config = SimConfig.forHole(Hole.IN_DOUBT_AFTER_FENCE);
    int max = Integer.getInteger("allot.sim.rareSeeds", 5_000);
    SimReport found = null;
    for (long seed = 1; seed <= max && found == null; seed++) {
      SimReport r = Simulation.run(seed, config);
      found = r.ok() ? null : r;
    }
    assertThat(found).as("no seed of %d found the window", max).isNotNull();
    isTheWindow(HolesTest.caughtBy(found.seed(), config));
  }

  /** The failure is the bug's: a unit released in doubt after a fence starts elsewhere while it still runs. */
  private static void isTheWindow(SimReport found) {
    SimReport.Failure f = found.failure().get();
    assertThat(f.invariant()).as(found.details()).isEqualTo("1 one-runner");
    String unit = f.message().replaceAll("^.*unit (\\S+) starts on.*$", "$1");
    assertThat(f.lastEvents()).as(found.details()).anyMatch(l -> l.contains("release in doubt " + unit + " "));
    assertThat(f.lastEvents()).anyMatch(l -> l.contains(" fenced: "));
  }
}
