package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code bench route} in CI form: every part, tiny. Only the shape of the report is asserted, and what holds at any
 * speed (the canary split is exact over whole cycles); the figures are the benchmark's to print.
 */
class RouteBenchTest {

  @Test
  void aTinyRunReportsEveryPart() {
    BenchRun r = BenchRun.of("route", "--quick",
        "--picks", "20000", "--seconds", "1", "--events", "2", "--calls", "2000");
    assertThat(r.code()).as(r.out() + "\n" + r.err()).isZero();
    assertThat(r.out()).contains("resolver: a join or deregistration", "pick cost, 5 READY backends", "pick cost, 50 READY backends",
        "allot_owner", "round_robin", "least_request_experimental",
        "one slow backend of 5", "allot_least_request p99 is",
        "owner routing in a handoff storm", "first-hit owner share",
        "service config v1=90 v2=10     v2 share 10.000%", "live weights v1=70 v2=30       v2 share 30.000%");
  }
}
