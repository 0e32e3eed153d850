package io.allot.testkit;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting on a condition that nothing can signal (a port opening, a line in a file another process writes): checks
 * it every {@code every} until it holds or the timeout passed. Tests may prefer Awaitility; this is for the
 * testkit's own servers and for benchmarks, which must not depend on a test library.
 */
public final class Poll {
  private Poll() {}

  /**
   * Checks {@code condition} until it holds or {@code timeout} passed.
   *
   * @return true if it held; false on timeout or if the thread was interrupted (the interrupt flag is kept)
   */
  public static boolean until(BooleanSupplier condition, Duration timeout, Duration every) {
    Objects.requireNonNull(condition, "condition");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(every.toNanos());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  /**
   * Like {@link #until} but fails when the condition did not hold in time.
   *
   * @param what   what is awaited, for the message ("redis-server on 127.0.0.1:4000 answers PING")
   * @param detail more for the message, computed only on failure (a log tail)
   * @throws IllegalStateException naming {@code what}, the timeout and the detail
   */
  public static void await(String what, BooleanSupplier condition, Duration timeout, Supplier<String> detail) {
    if (!until(condition, timeout, Duration.ofMillis(20))) {
      String more = detail == null ? "" : detail.get();
      throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms waiting until " + what
          + (Thread.currentThread().isInterrupted() ? " (interrupted)" : "") + (more.isEmpty() ? "" : ": " + more));
    }
  }
}
