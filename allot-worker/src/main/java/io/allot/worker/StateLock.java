package io.allot.worker;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The one lock of a divider. It guards the member session ({@link MemberSession}, {@link LeaseDeadline}) and the
 * unit table ({@link Reconciler}); the events queued while holding it ({@link EventDispatcher#emit}) therefore leave
 * in the order of the state changes. Rules:
 * <ul>
 *   <li>never held across a store call or a listener callback (a stuck store cannot delay a fence);</li>
 *   <li>{@link #signalAll()} after every change a waiter may wait for (an owned unit removed or confirmed, a
 *   registration, a fence): {@code flush} and the shutdown wait on it.</li>
 * </ul>
 */
final class StateLock {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  /** Runs {@code body} holding the lock. */
  void run(Runnable body) {
    lock.lock();
    try {
      body.run();
    } finally {
      lock.unlock();
    }
  }

  /** Computes {@code body} holding the lock. */
  <T> T get(Supplier<T> body) {
    lock.lock();
    try {
      return body.get();
    } finally {
      lock.unlock();
    }
  }

  void lock() {
    lock.lock();
  }

  void unlock() {
    lock.unlock();
  }

  /** Wakes every waiter; the caller holds the lock. */
  void signalAll() {
    changed.signalAll();
  }

  /** Waits at most {@code nanos} for a {@link #signalAll()}; the caller holds the lock (released while waiting). */
  void awaitNanos(long nanos) throws InterruptedException {
    changed.awaitNanos(nanos);
  }

  /** True if the current thread holds the lock (for assertions). */
  boolean isHeldByCurrentThread() {
    return lock.isHeldByCurrentThread();
  }
}
