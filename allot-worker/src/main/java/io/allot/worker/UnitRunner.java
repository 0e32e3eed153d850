package io.allot.worker;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link UnitHandler} for every unit a {@link Divider} gives this member, each on its own thread, and confirms
 * the stops itself: on a stop the handler's {@link UnitContext#stopRequested()} turns true and its thread is
 * interrupted; when the handler returns the runner calls {@link Divider#confirmStop(String, long)} with the token of
 * the run it ran (never another run's). A handler that returns without a stop request gives its unit up with
 * {@link Divider#release(String, long)}; the runner confirms the {@code RELEASED} stop that follows.
 *
 * <pre>{@code
 * Divider d = Divider.builder(store).pool("sys-robots-list").port(7001).build();
 * try (UnitRunner runner = UnitRunner.builder(d, ctx -> {
 *       while (!ctx.stopRequested()) { poll(ctx.unit()); ctx.awaitStop(Duration.ofSeconds(1)); }
 *     }).build()) {
 *   runner.start();
 *   ...
 * }
 * }</pre>
 *
 * <p>Threads: on Java 21+ one virtual thread per unit (found by reflection; {@link Builder#virtualThreads(boolean)}
 * turns it off); otherwise a bounded pool of platform threads, {@link Builder#maxThreads(int)}, by default the
 * divider's capacity (or 1024 when unlimited). Units beyond the pool size wait for a free thread while owned, so keep
 * it at least the capacity. A run of a unit never overlaps an earlier run of the same unit in this process: after a
 * {@link StopReason#LEASE_LOST} the unit may come back (after re-registration) while a slow handler still finishes;
 * the new run then waits for the old one.
 */
public final class UnitRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(UnitRunner.class);
  private static final AtomicLong IDS = new AtomicLong();

  private final Divider divider;
  private final UnitHandler handler;
  private final ExecutorService executor;
  private final boolean virtual;
  private final Map<String, Run> runs = new ConcurrentHashMap<>();

  private UnitRunner(Builder b) {
    this.divider = b.divider;
    this.handler = b.handler;
    ExecutorService vt = b.virtualThreads ? virtualThreadExecutor() : null;
    this.virtual = vt != null;
    if (vt != null) {
      this.executor = vt;
    } else {
      int cap = b.maxThreads > 0 ? b.maxThreads : (divider.capacity() < Integer.MAX_VALUE ? Math.max(1, divider.capacity()) : 1024);
      if (cap < divider.capacity() && divider.capacity() < Integer.MAX_VALUE) {
        log.warn("maxThreads {} < capacity {}: units beyond {} wait for a free thread", cap, divider.capacity(), cap);
      }
      long id = IDS.incrementAndGet();
      AtomicLong n = new AtomicLong();
      ThreadFactory f = r -> {
        Thread t = new Thread(r, "allot-unit-" + id + "-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      };
      ThreadPoolExecutor pool = new ThreadPoolExecutor(cap, cap, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), f);
      pool.allowCoreThreadTimeOut(true);
      this.executor = pool;
    }
    divider.addListener(UnitListener.of(this::started, this::stopped));
  }

  /**
   * A runner of {@code handler} over {@code divider}, which must not be started yet (the runner adds itself as a
   * listener).
   */
  public static Builder builder(Divider divider, UnitHandler handler) {
    return new Builder(divider, handler);
  }

  /** Starts the divider. */
  public void start() {
    divider.start();
  }

  /** The divider this runner drives. */
  public Divider divider() {
    return divider;
  }

  /** True if handlers run on virtual threads. */
  public boolean usesVirtualThreads() {
    return virtual;
  }

  /** The units whose handler is running or waiting for a thread; a snapshot. */
  public Set<String> running() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(runs.keySet()));
  }

  /**
   * Cancels the divider (which stops every handler with {@link StopReason#SHUTDOWN} and waits for them within its
   * shutdown grace), then stops the threads, interrupting handlers still running after 5 more seconds.
   */
  @Override
  public void close() {
    divider.cancel();
    executor.shutdown();
    try {
      if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
        log.warn("handlers still running 5 s after cancel: {}", runs.keySet());
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private void started(UnitStart start) {
    Run previous = runs.get(start.unit());
    Run run = new Run(start.unit(), start.token(), divider.generation(), previous);
    runs.put(start.unit(), run);
    try {
      executor.execute(run);
    } catch (RejectedExecutionException e) {
      runs.remove(start.unit(), run);
      log.warn("unit {} not started: the runner is closed", start.unit());
    }
  }

  private void stopped(UnitStop stop) {
    Run run = runs.get(stop.unit());
    if (run != null && run.token == stop.token() && run.requestStop(stop.reason())) {
      return; // the run confirms when its handler returns
    }
    // that run does not run any more (its handler returned on its own and released it): confirm at once
    if (stop.reason().awaitsConfirmation()) {
      divider.confirmStop(stop.unit(), stop.token());
    }
  }

  private final class Run implements Runnable, UnitContext {
    private final String unit;
    private final long token;
    private final long generation;
    private Run previous;
    private final CountDownLatch stopLatch = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    private Thread thread;
    private boolean finished;
    private volatile StopReason reason;

    Run(String unit, long token, long generation, Run previous) {
      this.unit = unit;
      this.token = token;
      this.generation = generation;
      this.previous = previous;
    }

    /** False if the run had already finished. */
    synchronized boolean requestStop(StopReason why) {
      if (finished) {
        return false;
      }
      if (reason == null) {
        reason = why;
      }
      stopLatch.countDown();
      if (thread != null) {
        thread.interrupt();
      }
      return true;
    }

    @Override
    public void run() {
      synchronized (this) {
        thread = Thread.currentThread();
      }
      Throwable failure = null;
      try {
        Run prev = previous;
        previous = null;
        if (prev != null && !prev.done.await(0, TimeUnit.NANOSECONDS)) {
          log.info("unit {} waits for its previous run in this process to end", unit);
          prev.done.await();
        }
        if (!stopRequested()) {
          handler.run(this);
        }
      } catch (InterruptedException e) {
        if (!stopRequested()) {
          failure = e;
        }
      } catch (Exception | Error e) {
        failure = e;
      } finally {
        StopReason why;
        synchronized (this) {
          finished = true;
          thread = null;
          why = reason;
        }
        Thread.interrupted(); // a stop that raced with the return must not hit the next task of this thread
        runs.remove(unit, this);
        done.countDown();
        finish(why, failure);
      }
    }

    private void finish(StopReason why, Throwable failure) {
      if (why != null && why.awaitsConfirmation()) {
        divider.confirmStop(unit, token);
      } else if (why == null && divider.generation() == generation) {
        if (failure != null) {
          log.warn("unit {} handler failed; releasing it (it runs again after the release hold)", unit, failure);
        } else {
          log.info("unit {} handler returned without a stop request; releasing it", unit);
        }
        divider.release(unit, token); // its RELEASED stop finds this run finished and is confirmed at once
      } else if (failure != null) {
        log.warn("unit {} handler failed while stopping ({})", unit, why, failure);
      }
    }

    @Override
    public String unit() {
      return unit;
    }

    @Override
    public long token() {
      return token;
    }

    @Override
    public boolean stopRequested() {
      return reason != null || divider.generation() != generation || !divider.leaseValid();
    }

    @Override
    public Optional<StopReason> stopReason() {
      StopReason r = reason;
      if (r != null) {
        return Optional.of(r);
      }
      return stopRequested() ? Optional.of(StopReason.LEASE_LOST) : Optional.empty();
    }

    @Override
    public boolean awaitStop(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      long end = System.nanoTime() + timeout.toNanos();
      try {
        while (!stopRequested()) {
          long left = end - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          // wake up now and then to notice a lease that ran out before its LEASE_LOST event was delivered
          stopLatch.await(Math.min(left, 50_000_000L), TimeUnit.NANOSECONDS);
        }
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return stopRequested();
      }
    }

    @Override
    public String toString() {
      return "UnitContext[" + unit + ", token " + token + "]";
    }
  }

  /** Looks up {@code Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(...).factory())} (Java 21+). */
  private static ExecutorService virtualThreadExecutor() {
    try {
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      Class<?> builderType = Class.forName("java.lang.Thread$Builder");
      builder = builderType.getMethod("name", String.class, long.class).invoke(builder, "allot-unit-", 0L);
      ThreadFactory factory = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
      Method m = java.util.concurrent.Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
      return (ExecutorService) m.invoke(null, factory);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null; // Java 17-20: platform threads
    }
  }

  /** Settings of a {@link UnitRunner}. */
  public static final class Builder {
    private final Divider divider;
    private final UnitHandler handler;
    private int maxThreads;
    private boolean virtualThreads = true;

    private Builder(Divider divider, UnitHandler handler) {
      this.divider = Objects.requireNonNull(divider, "divider");
      this.handler = Objects.requireNonNull(handler, "handler");
    }

    /** The platform thread pool size (when not on virtual threads); default the divider's capacity, or 1024. */
    public Builder maxThreads(int maxThreads) {
      if (maxThreads < 1) {
        throw new IllegalArgumentException("maxThreads must be >= 1 but was " + maxThreads);
      }
      this.maxThreads = maxThreads;
      return this;
    }

    /** Use virtual threads when the JVM has them (Java 21+); default true. */
    public Builder virtualThreads(boolean virtualThreads) {
      this.virtualThreads = virtualThreads;
      return this;
    }

    /**
     * Builds the runner and adds it as a listener of the divider.
     *
     * @throws IllegalStateException if the divider was already started
     */
    public UnitRunner build() {
      return new UnitRunner(this);
    }
  }
}
