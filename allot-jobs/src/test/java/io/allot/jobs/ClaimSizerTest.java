package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The worker's adaptive prefetch and claim size, without threads: durations are given, not measured. */
class ClaimSizerTest {
  private static final long MS = 1_000_000;

  /** Many short jobs: claims of 1 ms, reports of 2 ms, handlers of 10 µs. */
  private static void shortJobs(ClaimSizer s, int claims) {
    for (int i = 0; i < claims; i++) {
      for (int j = 0; j < 8; j++) {
        s.ran(10_000);
        s.reported(2 * MS);
      }
      s.claimed(MS);
    }
  }

  @Test
  void startsAtTheConcurrencyAndGrowsToTheCapForManyShortJobsAtMostDoublingPerClaim() {
    ClaimSizer s = new ClaimSizer(4, 512, 256, true);
    assertThat(s.prefetch()).isEqualTo(4);
    assertThat(s.threshold()).isEqualTo(2);
    s.claimed(MS); // no handler ran yet: nothing to go by
    assertThat(s.prefetch()).isEqualTo(4);
    int before = s.prefetch();
    shortJobs(s, 1);
    assertThat(s.prefetch()).as("at most twice plus the concurrency per claim").isEqualTo(2 * before + 4);
    shortJobs(s, 20);
    // 4 handlers of 10 µs: 400,000 jobs/s x (1 + 2 x 2) ms x 2 needs far more than the cap
    assertThat(s.prefetch()).isEqualTo(512);
    assertThat(s.threshold()).as("half the prefetch, at most a batch").isEqualTo(256);
  }

  @Test
  void shrinksAtOnceForLongHandlers() {
    ClaimSizer s = new ClaimSizer(4, 512, 256, true);
    shortJobs(s, 20);
    assertThat(s.prefetch()).isEqualTo(512);
    for (int i = 0; i < 40; i++) {
      s.ran(2_000 * MS); // handlers of 2 s: 2 jobs/s x 5 ms x 2 = 0.02 slots
    }
    s.claimed(MS);
    assertThat(s.prefetch()).as("one waiting job is enough").isEqualTo(1);
    assertThat(s.threshold()).isEqualTo(1);
  }

  @Test
  void followsLittlesLawBetweenTheBounds() {
    ClaimSizer s = new ClaimSizer(4, 512, 256, true);
    for (int i = 0; i < 50; i++) { // 4 handlers of 10 ms = 400 jobs/s; a job holds a slot 1 + 2 x 2 = 5 ms beyond
      s.ran(10 * MS);
      s.reported(2 * MS);
      s.claimed(MS);
    }
    assertThat(s.prefetch()).as("2 x 400/s x 5 ms").isEqualTo(4);
  }

  @Test
  void aPrefetchTheUserSetIsKeptAndTheCapsHold() {
    ClaimSizer fixed = new ClaimSizer(4, 16, 16, false);
    assertThat(fixed.prefetch()).isEqualTo(16);
    shortJobs(fixed, 20);
    assertThat(fixed.prefetch()).isEqualTo(16);
    assertThat(fixed.threshold()).isEqualTo(8);
    ClaimSizer none = new ClaimSizer(4, 0, 256, false);
    shortJobs(none, 5);
    assertThat(none.prefetch()).isZero();
    assertThat(none.threshold()).as("a claim as soon as a handler is free").isEqualTo(1);
    ClaimSizer capped = new ClaimSizer(2, 40, 8, true);
    shortJobs(capped, 20);
    assertThat(capped.prefetch()).isEqualTo(40);
    assertThat(capped.threshold()).as("at most a batch").isEqualTo(8);
    assertThatThrownBy(() -> new ClaimSizer(0, 1, 1, true)).hasMessageContaining("concurrency 0");
  }

  @Test
  void anOutlierDoesNotBlowTheEstimateUp() {
    ClaimSizer s = new ClaimSizer(4, 512, 256, true);
    for (int i = 0; i < 50; i++) {
      s.ran(100 * MS);
      s.reported(MS);
      s.claimed(MS);
    }
    assertThat(s.prefetch()).isEqualTo(1);
    s.reported(3_600_000 * MS); // an hour-long report (a store outage) counts as 1 s
    s.claimed(MS);
    // 40 jobs/s x (1 ms + 2 x ~0.2 s) x 2 = ~33
    assertThat(s.prefetch()).isBetween(2, 40);
  }
}
