package io.allot.bench;

import io.allot.core.assign.Assigner;

/**
 * One strategy at one (N, M): what {@link AssignRunner} measured, or the error that stopped it.
 *
 * @param measured the figures; null if the strategy failed
 * @param error the message of what the strategy threw (or why its table was invalid); null if it did not fail
 * @param errorPhase the operation during which the error happened: full, leave, join or churn; null if none
 * @param totalSeconds wall time of the row
 */
public record AssignRow(
    String strategy, int n, int m, Measured measured, String error, String errorPhase, double totalSeconds) {

  /** A row whose strategy completed every operation. */
  static AssignRow ok(String strategy, int n, int m, Measured measured, double totalSeconds) {
    return new AssignRow(strategy, n, m, measured, null, null, totalSeconds);
  }

  /** A row whose strategy failed during {@code phase}. */
  static AssignRow failed(String strategy, int n, int m, String error, String phase, double totalSeconds) {
    return new AssignRow(strategy, n, m, null, error, phase, totalSeconds);
  }

  /** True if the strategy completed every operation. */
  public boolean ok() {
    return error == null;
  }

  /** Median time of a full assignment per unit, ns. */
  public double fullNanosPerUnit() {
    return measured.fullNanos() / n;
  }

  /** Median full assignment time, ms. */
  public double fullMillis() {
    return measured.fullNanos() / 1e6;
  }

  /** Full assignment time over {@code modulo}'s at the same (N, M). */
  public double fullVsModulo() {
    return measured.fullNanos() / measured.moduloNanos();
  }

  /**
   * The figures of a completed row.
   *
   * @param maxOverIdeal worst member load over its fair share
   * @param maxOverCeil worst {@code load − ceil(fair share)} ({@link Metrics#maxOverCeil}); at most 0 when every
   *     member is within the balance bound
   * @param fullNanos median time of a full assignment
   * @param fullSamples timed runs of the full assignment
   * @param moduloNanos median time of {@code modulo}'s full assignment at the same (N, M)
   * @param leave the middle member leaves
   * @param join member {@value Scenario#JOINER} joins
   * @param churn 1 % of the units are replaced
   * @param added 1 % more units come
   * @param removed 1 % of the units go
   * @param updateSamples the fewest timed runs of the updates
   * @param incremental true if the strategy has its own {@link Assigner#update}
   * @param check {@code ok} if every update equalled the full assignment of the same inputs, {@code differs:
   *     leave,...} if not, {@code n/a} for strategies without an incremental form, {@code skipped} when a full
   *     assignment is too slow to repeat
   */
  public record Measured(
      double maxOverIdeal,
      long maxOverCeil,
      double fullNanos,
      int fullSamples,
      double moduloNanos,
      Move leave,
      Move join,
      Churn churn,
      Churn added,
      Churn removed,
      int updateSamples,
      boolean incremental,
      String check) {}

  /**
   * A member leaving or joining.
   *
   * @param moved units present before and after whose owner changed
   * @param optimum the fewest moves that realise the new loads
   * @param updateNanos median time of {@link Assigner#update} with the matching hint
   */
  public record Move(long moved, long optimum, double updateNanos) {
    /** {@code moved / optimum} ({@link Metrics#ratio}). */
    public double ratio() {
      return Metrics.ratio(moved, optimum);
    }

    public double updateMillis() {
      return updateNanos / 1e6;
    }
  }

  /**
   * Units replaced, added or removed.
   *
   * @param replaced units changed: removed (and as many added), added, or removed
   * @param others units present before and after
   * @param othersMoved of {@code others}, how many changed owner
   * @param updateNanos median time of {@link Assigner#update} with the matching hint
   */
  public record Churn(int replaced, int others, long othersMoved, double updateNanos) {
    public double othersMovedPercent() {
      return others <= 0 ? Double.NaN : 100.0 * othersMoved / others;
    }

    public double updateMillis() {
      return updateNanos / 1e6;
    }
  }
}
