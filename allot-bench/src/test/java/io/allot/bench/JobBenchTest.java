package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.TestServers;
import org.junit.jupiter.api.Test;

/**
 * {@code bench jobs} in CI form: 500 jobs through allot and db-scheduler on PostgreSQL and through allot on Redis
 * (local servers, else throwaway ones), each side's workers in 2 processes of their own. Only the shape of the report and that every job finished are asserted; the
 * rates are the benchmark's to print, not a test's to judge.
 */
class JobBenchTest {

  @Test
  void aTinyRunFinishesEveryJobOnBothSystemsAndBothStores() {
    BenchRun r = BenchRun.of("jobs", "--quick", "--jobs", "500", "--claims", "50", "--postgres", TestServers.postgresUri(),
        "--redis", TestServers.redisUri());
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("reference: single-row UPDATE",
        "allot/PostgreSQL: 500 jobs", "500 finished in the store, 0 completions refused",
        "db-scheduler 16.7.1: 500 jobs", "0 rows left in its table, 0 failures",
        "allot/Redis: 500 jobs", "PostgreSQL claim latency", "Redis claim latency", "ratio allot/db-scheduler",
        "2 worker processes (JVMs of their own)", "2 scheduler processes (JVMs of their own)", "(goal >= 3.00: ",
        "(goal >= 70%: ", "(goal >= 50,000: ", "load average");
  }

  @Test
  void postgresNoneRunsRedisAlone() {
    BenchRun r = BenchRun.of("jobs", "--quick", "--jobs", "300", "--claims", "20", "--postgres", "none",
        "--redis", TestServers.redisUri());
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("PostgreSQL skipped", "allot/Redis: 300 jobs", "Redis claim latency",
        "what-if Redis claim(64)", "(goal >= 50,000: ", "CPU per job: Redis server ", "worker processes ")
        .doesNotContain("allot/PostgreSQL", "db-scheduler 16.7.1", "reference: single-row UPDATE");
  }

  @Test
  void badOptionsAreNamed() {
    BenchRun r = BenchRun.of("jobs", "--jobs", "0");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("--jobs must be at least 1, got 0");
    BenchRun s = BenchRun.of("jobs", "--enqueue-batch", "20000");
    assertThat(s.code()).isEqualTo(2);
    assertThat(s.err()).startsWith("--enqueue-batch must be between 1 and 10000, got 20000");
  }
}
