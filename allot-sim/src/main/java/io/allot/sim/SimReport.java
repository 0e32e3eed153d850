package io.allot.sim;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one simulation run did and found.
 *
 * @param seed          the seed: the same seed (and configuration) gives the same run, event for event
 * @param hole          the fix reverted, or {@link Hole#NONE}
 * @param events        events run, faults and quiescence included
 * @param virtualMillis virtual time covered
 * @param traceHash     SHA-256 of the trace (tokens relative to the store's origin): equal for equal runs
 * @param traceLines    lines in the trace
 * @param faults        faults injected, by kind
 * @param counts        what happened how often (fences, claims in doubt, withheld starts, late confirmations...)
 * @param starts        handler starts (runs of units)
 * @param storeCalls    store calls sent
 * @param quiesceMillis how long after the faults stopped every unit ran exactly once (-1 if it never did)
 * @param failure       the invariant that failed, if any
 */
public record SimReport(long seed, Hole hole, long events, long virtualMillis, String traceHash, long traceLines,
    Map<Fault, Integer> faults, Map<String, Long> counts, long starts, long storeCalls, long quiesceMillis,
    Optional<Failure> failure) {

  /**
   * A failed invariant.
   *
   * @param invariant  which one ({@code 1 one-runner}, {@code 2 tokens}, {@code 3 nothing-lost}, {@code 4 valid-lease},
   *                   or {@code crash} for an exception of the simulated code)
   * @param message    what was seen
   * @param event      the number of the event after which it was seen
   * @param atMillis   virtual time of that event
   * @param lastEvents the end of the trace, oldest first
   */
  public record Failure(String invariant, String message, long event, long atMillis, List<String> lastEvents) {}

  /** True if no invariant failed. */
  public boolean ok() {
    return failure.isEmpty();
  }

  /** One line: seed, outcome, and the figures. */
  public String summary() {
    return "seed " + seed + " (" + hole + "): " + failure.map(f -> "FAILED " + f.invariant() + " at event " + f.event()
        + " (" + f.atMillis() + " ms): " + f.message()).orElse("ok") + "; " + events + " events, " + virtualMillis
        + " ms virtual, " + starts + " starts, " + storeCalls + " store calls, quiesced in " + quiesceMillis
        + " ms, faults " + faults + ", " + counts + ", trace " + traceHash.substring(0, 16);
  }

  /** The failure with the end of the trace, for a test's message; empty string if none. */
  public String details() {
    return failure.map(f -> summary() + "\nlast events:\n  " + String.join("\n  ", f.lastEvents())).orElse("");
  }
}
