package io.allot.worker;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The clock, threads and locks a {@link Divider} runs on. The default, {@link #system()}, is the JVM's:
 * {@link System#nanoTime()}, daemon platform threads and {@link ReentrantLock}s; no application needs another.
 *
 * <p>It exists so that a simulator can run the SDK's real threads on a virtual clock, the way Caffeine takes a
 * {@code Ticker} and a {@code Scheduler} and OkHttp's {@code TaskRunner} a {@code Backend} that its tests replace
 * with {@code TaskFaker} ({@link Divider.Builder#backend}; allot-sim does it). Every wait of the SDK's own threads goes
 * through it: the timed waits are {@link java.util.concurrent.locks.Condition}s of the locks it makes (lease renewals,
 * the watchdog, the reconciliation loop's pauses, the releaser's and the event thread's queues, the shutdown's waits)
 * and thread ends are awaited with {@link Strand#join}. The store calls block the calling thread as the store does.
 * So a backend that runs one thread at a time, and moves its clock only while every thread waits, makes a divider
 * deterministic.
 */
public interface DividerBackend {

  /** The JVM's clock, daemon threads and locks. */
  static DividerBackend system() {
    return SystemBackend.INSTANCE;
  }

  /** A monotonic clock in nanoseconds (as {@link System#nanoTime()}): the lease arithmetic's only clock. */
  long nanoTime();

  /** The wall clock in epoch milliseconds, only to date events ({@link Divider#lastFencedAtMillis()}). */
  long currentTimeMillis();

  /** A new reentrant lock; its conditions are the SDK's timed waits. */
  Lock newLock();

  /** Starts {@code body} on a new daemon thread named {@code name}. */
  Strand start(String name, Runnable body);

  /** A thread started by {@link #start}. */
  interface Strand {
    /** True if the caller runs on this thread. */
    boolean isCurrent();

    /** Interrupts the thread (a wait on a condition throws {@link InterruptedException}). */
    void interrupt();

    /** Waits at most {@code nanos} for the thread to end; true if it ended. */
    boolean join(long nanos) throws InterruptedException;
  }
}

/** {@link DividerBackend#system()}. */
final class SystemBackend implements DividerBackend {
  static final SystemBackend INSTANCE = new SystemBackend();

  private SystemBackend() {}

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public long currentTimeMillis() {
    return System.currentTimeMillis();
  }

  @Override
  public Lock newLock() {
    return new ReentrantLock();
  }

  @Override
  public Strand start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
    return new Strand() {
      @Override
      public boolean isCurrent() {
        return Thread.currentThread() == t;
      }

      @Override
      public void interrupt() {
        t.interrupt();
      }

      @Override
      public boolean join(long nanos) throws InterruptedException {
        TimeUnit.NANOSECONDS.timedJoin(t, nanos);
        return !t.isAlive();
      }
    };
  }

  @Override
  public String toString() {
    return "DividerBackend.system()";
  }
}
