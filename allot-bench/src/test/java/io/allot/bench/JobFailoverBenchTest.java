package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.TestServers;
import org.junit.jupiter.api.Test;

/**
 * {@code bench failover --jobs} in CI form: two trials against the test Redis, each a SIGKILL of a real endpoint
 * process mid-job; every job runs again elsewhere, nothing overlaps, and the figures and the goal line are printed
 * (the figures are not asserted: a loaded machine may miss the goal).
 */
class JobFailoverBenchTest {

  @Test
  void aShortRunKillsEndpointsAndFindsNoOverlap() {
    BenchRun r = BenchRun.of("failover", "--jobs", "--trials", "2", "--store", TestServers.redisUri());
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("trial  1: killed endpoint-", "trial  2: killed endpoint-", "ran again elsewhere after",
        "p50", "p99", "goal p99 <= 2000 ms:", "0 overlaps, 0 problems");
  }

  @Test
  void jobsAndTasksTogetherAreBadUsage() {
    BenchRun r = BenchRun.of("failover", "--jobs", "--tasks", "--trials", "1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--jobs");
  }
}
