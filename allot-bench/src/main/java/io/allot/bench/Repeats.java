package io.allot.bench;

import io.allot.core.assign.Table;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * Times an operation over several runs and keeps the median. In automatic mode ({@code budgeted}) the count asked
 * for is a minimum: a cheap operation is repeated until its runs add up to {@value #MIN_MILLIS} ms (at most {@value
 * #MAX_AUTO_REPS} runs), and an expensive one stops early, after at least one run, once its runs add up to {@value
 * #BUDGET_SECONDS} s. Otherwise it runs exactly that many times.
 */
final class Repeats {
  private Repeats() {}

  /** In automatic mode, stop repeating an operation once its runs took this long together. */
  static final int BUDGET_SECONDS = 10;

  /** In automatic mode, repeat a cheap operation until its runs took this long together... */
  static final int MIN_MILLIS = 500;

  /** ...or it ran this many times. */
  static final int MAX_AUTO_REPS = 25;

  /** The median time of the runs, how many there were, and the table the last one returned. */
  record Timed(double medianNanos, int samples, Table last) {}

  /** Runs {@code op} {@code reps} times (a minimum if {@code budgeted}). */
  static Timed time(Supplier<Table> op, int reps, boolean budgeted) {
    int max = budgeted ? Math.max(reps, MAX_AUTO_REPS) : reps;
    long[] ns = new long[max];
    long spent = 0;
    Table last = null;
    int k = 0;
    while (k < max) {
      last = null; // the previous result may go before the next run allocates
      long t0 = System.nanoTime();
      Table r = op.get();
      long dt = System.nanoTime() - t0;
      last = r;
      ns[k++] = dt;
      spent += dt;
      if (budgeted ? spent >= BUDGET_SECONDS * 1_000_000_000L || (k >= reps && spent >= MIN_MILLIS * 1_000_000L)
          : k >= reps) {
        break;
      }
    }
    return new Timed(median(Arrays.copyOf(ns, k)), k, last);
  }

  /** The median of {@code xs} (sorted in place); the mean of the middle two for an even count. */
  static double median(long[] xs) {
    Arrays.sort(xs);
    int k = xs.length;
    return k % 2 == 1 ? xs[k / 2] : (xs[k / 2 - 1] + xs[k / 2]) / 2.0;
  }
}
