package io.allot.worker;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
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
 * The lock and its condition come from the {@link DividerBackend} (a {@code ReentrantLock} by default).
 */
final class StateLock {
  private final Lock lock;
  private final Condition changed;
  /** Written under {@code lock}: the thread holding it and how often (for the assertions; see below). */
  private Thread holder;
  private int holds;

  StateLock(DividerBackend backend) {
    this.lock = backend.newLock();
    this.changed = lock.newCondition();
  }

  /** Runs {@code body} holding the lock. */
  void run(Runnable body) {
    lock();
    try {
      body.run();
    } finally {
      unlock();
    }
  }

  /** Computes {@code body} holding the lock. */
  <T> T get(Supplier<T> body) {
    lock();
    try {
      return body.get();
    } finally {
      unlock();
    }
  }

  void lock() {
    lock.lock();
    holder = Thread.currentThread();
    holds++;
  }

  void unlock() {
    if (--holds == 0) {
      holder = null;
    }
    lock.unlock();
  }

  /** Wakes every waiter; the caller holds the lock. */
  void signalAll() {
    changed.signalAll();
  }

  /** Waits at most {@code nanos} for a {@link #signalAll()}; the caller holds the lock (released while waiting). */
  void awaitNanos(long nanos) throws InterruptedException {
    int held = holds;
    holds = 0;
    holder = null;
    try {
      changed.awaitNanos(nanos);
    } finally {
      holder = Thread.currentThread();
      holds = held;
    }
  }

  /** True if the current thread holds the lock (for assertions). */
  boolean isHeldByCurrentThread() {
    // read without the lock: only the current thread can have written itself there, and its own writes it sees
    return holder == Thread.currentThread();
  }
}
