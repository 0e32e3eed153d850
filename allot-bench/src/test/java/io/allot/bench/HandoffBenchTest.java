package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code bench handoff} in CI form: a small rolling restart on the in-process memory store. Only the shape of the
 * report and the overlap check are asserted; the timings are the benchmark's to print, not a test's to judge.
 */
class HandoffBenchTest {

  @Test
  void aSmallRollingRestartAndAJoinRunWithoutOverlaps() {
    BenchRun r = BenchRun.of("handoff", "--store", "memory:", "--workers", "2", "--units", "120", "--settle-timeout", "60",
        "--max-moves", "4", "--claim-batch", "16");
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("restart 1: drain of m0", "restart 2: join of m3", "join of a member to 2",
        "handoff gap (old owner's stop -> new owner's start)", "join of a fifth member: full share after",
        "0 overlaps, 0 problems", "maxConcurrentMoves 4, claimBatch 16",
        "claimAll of 16 new units p50 ");
  }

  @Test
  void badOptionsAreNamed() {
    refused("--workers must be between 2 and 32, got 1", "--workers", "1");
    refused("--strategy: ", "--strategy", "nope");
    refused("--claim-batch must be at least 1, got 0", "--claim-batch", "0");
    refused("--max-moves must be at least 1, got 0", "--max-moves", "0");
  }

  /** {@code bench handoff args} exits with 2 and an error starting with {@code error}. */
  private static void refused(String error, String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "handoff";
    System.arraycopy(args, 0, all, 1, args.length);
    BenchRun r = BenchRun.of(all);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith(error);
  }
}
