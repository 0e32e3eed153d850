package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * {@code bench handoff} in CI form: a small rolling restart on the in-process memory store. Only the shape of the
 * report and the overlap check are asserted; the timings are the benchmark's to print, not a test's to judge.
 */
class HandoffBenchTest {

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BenchMain.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void aSmallRollingRestartAndAJoinRunWithoutOverlaps() {
    Run r = run("handoff", "--store", "memory:", "--workers", "2", "--units", "120", "--settle-timeout", "60",
        "--max-moves", "4", "--claim-batch", "16");
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("restart 1: drain of m0", "restart 2: join of m3", "join of a member to 2",
        "handoff gap (old owner's stop -> new owner's start)", "join of a fifth member: full share after",
        "0 overlaps, 0 problems", "maxConcurrentMoves 4, claimBatch 16",
        "claimAll of 16 new units p50 ");
  }

  @Test
  void badOptionsAreNamed() {
    Run r = run("handoff", "--workers", "1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("--workers must be between 2 and 32, got 1");
    Run s = run("handoff", "--strategy", "nope");
    assertThat(s.code()).isEqualTo(2);
    assertThat(s.err()).startsWith("--strategy: ");
    Run b = run("handoff", "--claim-batch", "0");
    assertThat(b.code()).isEqualTo(2);
    assertThat(b.err()).startsWith("--claim-batch must be at least 1, got 0");
    Run m = run("handoff", "--max-moves", "0");
    assertThat(m.code()).isEqualTo(2);
    assertThat(m.err()).startsWith("--max-moves must be at least 1, got 0");
  }
}
