package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.TestServers;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code bench distributor} in CI form: a small run on the test Redis prints every figure. */
class DistributorBenchTest {

  @Test
  void aSmallRunPrintsEveryFigure() {
    BenchRun r = BenchRun.of("distributor",
        "--members", "40", "--ping-members", "2", "--units", "800", "--events", "2", "--steady", "2",
        "--member-ttl", "3000", "--heap", "256m", "--store", TestServers.redisUri());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("first table published", "steady window", "% of one core", "heap: max used",
        "registration", "affinity change", "deregistration", "death", "table write of one change");
  }

  @Test
  void percentilesAreNearestRank() {
    List<Long> sorted = List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    assertThat(DistributorBench.pct(sorted, 50)).isEqualTo(5);
    assertThat(DistributorBench.pct(sorted, 99)).isEqualTo(10);
    assertThat(DistributorBench.pct(List.of(7L), 99)).isEqualTo(7);
  }
}
