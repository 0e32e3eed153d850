package io.allot.jobs;

import java.util.concurrent.Future;

/**
 * How an endpoint stops one attempt's handler: {@link #stop()} marks it stopped (the handler's
 * {@link JobContext#stopRequested()}) and interrupts its thread through its future. The future is known only once
 * the executor accepted the run, and the handler may already be running then: a stop that comes before
 * {@link #attach} is carried out by {@code attach}, so a handler that only answers interrupts is interrupted in every
 * order of the two (the dispatcher hands the attempt to another endpoint after the deadline it gave, trusting that).
 *
 * <p>Thread-safe: both fields are volatile and each method writes its own field before reading the other's, so at
 * least one of {@code stop} and {@code attach} sees both and cancels.
 */
final class RunHandle {
  /** Set once by the thread that submitted the run. */
  private volatile Future<?> future;
  /** Sticky once set. */
  private volatile boolean stopped;

  /** The run was submitted as {@code f}; cancels it at once (interrupting) if it was stopped before. */
  void attach(Future<?> f) {
    future = f;
    if (stopped) {
      f.cancel(true);
    }
  }

  /** Stops the run: marks it and interrupts its thread if it is known to have one. */
  void stop() {
    stopped = true;
    Future<?> f = future;
    if (f != null) {
      f.cancel(true);
    }
  }

  /** True once stopped. */
  boolean stopped() {
    return stopped;
  }
}
