package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.TestServers;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * {@code bench queue} in CI form: 500 tasks through allot and db-scheduler on PostgreSQL and through allot on Redis
 * (local servers, else throwaway ones). Only the shape of the report and that every task finished are asserted; the
 * rates are the benchmark's to print, not a test's to judge.
 */
class QueueBenchTest {

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BenchMain.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void aTinyRunFinishesEveryTaskOnBothSystemsAndBothStores() {
    Run r = run("queue", "--quick", "--tasks", "500", "--claims", "50", "--postgres", TestServers.postgresUri(),
        "--redis", TestServers.redisUri());
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("reference: single-row UPDATE",
        "allot/PostgreSQL: 500 tasks", "500 finished in the store, 0 completions refused",
        "db-scheduler 16.7.1: 500 tasks", "0 rows left in its table, 0 failures",
        "allot/Redis: 500 tasks", "PostgreSQL claim latency", "Redis claim latency", "ratio allot/db-scheduler");
  }

  @Test
  void badOptionsAreNamed() {
    Run r = run("queue", "--tasks", "0");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("--tasks must be at least 1 but was 0");
    Run s = run("queue", "--enqueue-batch", "20000");
    assertThat(s.code()).isEqualTo(2);
    assertThat(s.err()).startsWith("--enqueue-batch must be in [1, 10000]");
  }
}
