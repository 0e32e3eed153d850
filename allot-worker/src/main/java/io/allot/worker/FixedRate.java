package io.allot.worker;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * Runs a body every {@code period} at a fixed rate on a thread of its own, as
 * {@link java.util.concurrent.ScheduledExecutorService#scheduleAtFixedRate} does (a run that overran its period is
 * followed at once by the next), with its waits on the {@link DividerBackend}: the lease thread and the watchdog.
 * Guards: {@code on} by {@code lock}; the strand is set once by {@link #start}.
 */
final class FixedRate {
  private final DividerBackend backend;
  private final String name;
  private final long periodNanos;
  private final Runnable body;
  private final Lock lock;
  private final Condition stopped;
  /** Guarded by {@code lock}. */
  private boolean on = true;
  /** Set once by {@link #start}. */
  private volatile DividerBackend.Strand strand;

  FixedRate(DividerBackend backend, String name, long periodNanos, Runnable body) {
    this.backend = backend;
    this.name = name;
    this.periodNanos = periodNanos;
    this.body = body;
    this.lock = backend.newLock();
    this.stopped = lock.newCondition();
  }

  /** Starts the thread: the first run one period from now. */
  void start() {
    strand = backend.start(name, this::run);
  }

  /**
   * Stops the thread, interrupting a run in progress (as {@code shutdownNow}), and waits up to {@code waitNanos} for it
   * to end.
   */
  void stop(long waitNanos) {
    lock.lock();
    try {
      on = false;
      stopped.signalAll();
    } finally {
      lock.unlock();
    }
    DividerBackend.Strand s = strand;
    if (s == null || s.isCurrent()) {
      return;
    }
    s.interrupt();
    try {
      s.join(waitNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    long next = backend.nanoTime() + periodNanos;
    while (true) {
      lock.lock();
      try {
        long left;
        while (on && (left = next - backend.nanoTime()) > 0) {
          stopped.awaitNanos(left);
        }
        if (!on) {
          return;
        }
      } catch (InterruptedException e) {
        return; // stop()
      } finally {
        lock.unlock();
      }
      body.run();
      next += periodNanos;
    }
  }
}
