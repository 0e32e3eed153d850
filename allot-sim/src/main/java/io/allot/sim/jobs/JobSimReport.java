package io.allot.sim.jobs;

import io.allot.sim.SimReport;
import java.util.Map;
import java.util.Optional;

/**
 * What one run of the job simulator ({@link JobSim}) or of the concurrent rounds ({@link JobRounds}) did and found.
 *
 * @param seed       the seed of the clients' draws (a {@link JobSim} run replays from it exactly)
 * @param mix        the op mix's name
 * @param steps      calls made
 * @param millis     time covered (virtual for {@link JobSim}, real for {@link JobRounds})
 * @param traceHash  SHA-256 of the trace ({@link JobSim} only: equal for equal runs; "" otherwise)
 * @param counts     what the ledger saw how often
 * @param failure    the invariant that failed, if any, with the end of the trace
 */
public record JobSimReport(long seed, String mix, long steps, long millis, String traceHash, Map<String, Long> counts,
    Optional<SimReport.Failure> failure) {

  /** True if no invariant failed. */
  public boolean ok() {
    return failure.isEmpty();
  }

  /** One line: seed, outcome and the figures. */
  public String summary() {
    return "job sim seed " + seed + " (" + mix + "): " + failure.map(f -> "FAILED " + f.invariant() + " at step "
        + f.event() + " (" + f.atMillis() + " ms): " + f.message()).orElse("ok") + "; " + steps + " calls, " + millis
        + " ms, " + counts + (traceHash.isEmpty() ? "" : ", trace " + traceHash.substring(0, 16));
  }

  /** The summary with the end of the trace; "" if no invariant failed. */
  public String details() {
    return failure.map(f -> summary() + "\nlast calls:\n  " + String.join("\n  ", f.lastEvents())).orElse("");
  }
}
