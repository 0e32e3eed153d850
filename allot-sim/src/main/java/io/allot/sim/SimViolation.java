package io.allot.sim;

/**
 * An invariant failed: thrown where it is detected, caught by {@link Simulation#run}, which stops the run and reports
 * it with the seed, the step and the end of the trace.
 */
public final class SimViolation extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String invariant;

  /**
   * @param invariant which one, e.g. {@code "1 one runner"}
   * @param message   what was seen, naming units, members and tokens
   */
  public SimViolation(String invariant, String message) {
    super("invariant " + invariant + ": " + message);
    this.invariant = invariant;
  }

  /** Which invariant failed. */
  public String invariant() {
    return invariant;
  }
}
