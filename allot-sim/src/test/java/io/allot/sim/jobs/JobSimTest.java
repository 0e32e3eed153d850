package io.allot.sim.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The job simulator's CI run on the memory store: pinned seeds of the standard mix, every invariant after every call,
 * and exact replays. {@code -Dallot.jobsim.seed=S} replays seed S alone and prints its whole trace; {@code
 * -Dallot.jobsim.seeds=N} runs N seeds from 1 instead of the CI's {@value #CI_SEEDS}.
 */
class JobSimTest {
  static final int CI_SEEDS = 12;
  static final int STEPS = 3_000;
  static final int CLIENTS = 4;

  @Test
  void everySeedKeepsEveryInvariant() {
    String replay = System.getProperty("allot.jobsim.seed");
    if (replay != null) {
      JobSimReport r = JobSim.run(Long.parseLong(replay), CLIENTS, STEPS, JobMix.standard(), System.out::println);
      System.out.println(r.summary());
      assertThat(r.ok()).as(r.details()).isTrue();
      return;
    }
    int seeds = Integer.getInteger("allot.jobsim.seeds", CI_SEEDS);
    Map<String, Long> totals = new TreeMap<>();
    long t0 = System.nanoTime();
    for (long seed = 1; seed <= seeds; seed++) {
      JobSimReport r = JobSim.run(seed, CLIENTS, STEPS, JobMix.standard(), null);
      assertThat(r.ok()).as("%s%n  replay: -Dallot.jobsim.seed=%d", r.details(), seed).isTrue();
      r.counts().forEach((k, n) -> totals.merge(k, n, Long::sum));
    }
    System.out.printf(Locale.ROOT, "job simulator: %d seeds x %d calls in %.1f s: %s%n", seeds, STEPS,
        (System.nanoTime() - t0) / 1e9, totals);
    // the mix reaches every case the invariants are about
    assertThat(totals).containsKeys("completions refused", "extends refused", "seen purged", "changed by hand");
    assertThat(totals.get("claimed under a rate limit")).isPositive();
    assertThat(totals.get("completions refused")).isPositive();
  }

  @Test
  void aSeedReplaysExactly() {
    JobSimReport a = JobSim.run(7, CLIENTS, STEPS, JobMix.standard(), null);
    JobSimReport b = JobSim.run(7, CLIENTS, STEPS, JobMix.standard(), null);
    assertThat(b.traceHash()).isEqualTo(a.traceHash());
    assertThat(b.counts()).isEqualTo(a.counts());
    assertThat(JobSim.run(8, CLIENTS, STEPS, JobMix.standard(), null).traceHash()).isNotEqualTo(a.traceHash());
  }
}
