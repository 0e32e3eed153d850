package io.allot.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The simulator can fail: each configuration that reverts one fix of issue 8 is caught by some seed out of a modest
 * number, and that very seed passes with the fix in place.
 */
class HolesTest {

  /**
   * The search stops at the first failing seed; the limits are sized for CI with the real SDK's threads (README, "It
   * can fail": hole 1 first fails at seed 4 and 4 of the first 20 fail; hole 3 at seed 3, 4 of 32).
   */
  @ParameterizedTest
  @EnumSource(value = Hole.class, names = {"LOST_STATE_GUARD", "CANCEL_AFTER_FENCE"})
  void aRevertedFixIsCaught(Hole hole) {
    caught(hole, 40);
  }

  /** Rarer (README: 1 of the first 150 seeds, seed 44): the search budget is that seed plus a margin. */
  @Test
  void aZeroClockMarginIsCaught() {
    caught(Hole.CLOCK_MARGIN, 60);
  }

  /**
   * Hole 5 needs a late confirmation of an earlier run while a later run of the unit stops: rarer (the model of the
   * glue found it in 1 seed of 500; with the real SDK's threads none of the first 150 seeds finds it), so beyond the
   * CI budget: {@code -Dallot.sim.rareHoles=true} runs it.
   */
  @Test
  @EnabledIfSystemProperty(named = "allot.sim.rareHoles", matches = "true")
  void confirmationsByUnitAreCaught() {
    caught(Hole.CONFIRM_BY_UNIT, 4_000);
  }

  /** The application of the hole-5 configuration (many late confirmations) is harmless with the fix in place. */
  @Test
  @EnabledIfSystemProperty(named = "allot.sim.rareHoles", matches = "true") // 20 seeds reach no earlier run
  void theFixedSdkKeepsEveryInvariantWithAnApplicationThatConfirmsLate() {
    SimConfig config = SimConfig.forHole(Hole.CONFIRM_BY_UNIT).toBuilder().hole(Hole.NONE).build();
    long earlierRuns = 0;
    for (long seed = 1; seed <= 200; seed++) {
      SimReport r = Simulation.run(seed, config);
      assertThat(r.ok()).as(r.details()).isTrue();
      earlierRuns += r.counts().getOrDefault("confirmation of an earlier run", 0L);
    }
    assertThat(earlierRuns).as("late confirmations of an earlier run, ignored by the token").isPositive();
  }

  private static void caught(Hole hole, int maxSeeds) {
    SimConfig config = SimConfig.forHole(hole);
    Optional<SimReport> found = Optional.empty();
    for (long seed = 1; seed <= maxSeeds && found.isEmpty(); seed++) {
      SimReport r = Simulation.run(seed, config);
      if (!r.ok()) {
        found = Optional.of(r);
      }
    }
    assertThat(found).as(hole.description() + ": no seed of " + maxSeeds + " found a violation").isPresent();
    SimReport r = found.get();
    System.out.println(hole + " caught by seed " + r.seed() + ": " + r.failure().get().message()
        + "\n  replay: ./mvnw -B -o -pl allot-sim test -Dtest=SimulationTest#everySeedKeepsEveryInvariant"
        + " -Dallot.sim.hole=" + hole + " -Dallot.sim.seed=" + r.seed() + " -Dallot.sim.steps=" + config.steps());
    assertThat(r.failure().get().invariant()).as(r.details()).isIn("1 one-runner", "2 tokens");

    SimConfig fixed = config.toBuilder().hole(Hole.NONE)
        .lostStateGuard(SimConfig.defaults().lostStateGuard()).clockMargin(SimConfig.defaults().clockMargin()).build();
    SimReport withFix = Simulation.run(r.seed(), fixed);
    assertThat(withFix.ok()).as(withFix.details()).isTrue();
  }
}
