package io.allot.worker;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A flag that one thread raises and another waits for, on a lock of the {@link DividerBackend}: the one pending
 * wake-up of the reconciliation loop and of the releaser (a queue of one element), and the divider's end (a latch).
 * Raising never blocks for long (a lock held only to flip the flag). Guards: {@code raised} by {@code lock}.
 */
final class Wakeup {
  private final Lock lock;
  private final Condition changed;
  /** Guarded by {@code lock}. */
  private boolean raised;

  Wakeup(DividerBackend backend) {
    this.lock = backend.newLock();
    this.changed = lock.newCondition();
  }

  /** Raises the flag and wakes the waiters. Any thread. */
  void raise() {
    lock.lock();
    try {
      raised = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Waits at most {@code nanos} for the flag and lowers it; true if it was raised. */
  boolean take(long nanos) throws InterruptedException {
    lock.lock();
    try {
      long left = nanos;
      while (!raised && left > 0) {
        left = changed.awaitNanos(left);
      }
      boolean was = raised;
      raised = false;
      return was;
    } finally {
      lock.unlock();
    }
  }

  /** Waits for the flag and lowers it. */
  void take() throws InterruptedException {
    lock.lock();
    try {
      while (!raised) {
        changed.await();
      }
      raised = false;
    } finally {
      lock.unlock();
    }
  }

  /** Waits for the flag and leaves it raised (a latch). */
  void await() throws InterruptedException {
    lock.lock();
    try {
      while (!raised) {
        changed.await();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Waits {@code nanos} on the backend's clock (a sleep no one wakes). */
  static void sleep(DividerBackend backend, long nanos) throws InterruptedException {
    Lock l = backend.newLock();
    Condition never = l.newCondition();
    long end = backend.nanoTime() + nanos;
    l.lock();
    try {
      long left;
      while ((left = end - backend.nanoTime()) > 0) {
        never.awaitNanos(left);
      }
    } finally {
      l.unlock();
    }
  }
}
