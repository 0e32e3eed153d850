package io.allot.tasks;

import io.allot.store.Durations;
import io.allot.store.tasks.TaskFault;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpec;
import io.allot.store.tasks.TaskSpecs;
import io.allot.worker.Divider;
import io.allot.worker.StopReason;
import io.allot.worker.UnitContext;
import io.allot.worker.UnitRunner;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs long-running tasks: a {@link TaskHandler} for every task of the pool's specs that the divider gives this
 * member, on top of a {@link UnitRunner} (one thread per task; stops confirmed for the run they name). For each run it
 * reads the task's spec, records the start in the store ({@link TaskSpecs#started}: the task is then
 * {@code Processing}, with this member and the fencing token), and hands the handler the name, arguments, revision
 * and token.
 *
 * <ul>
 *   <li><b>Capacity</b> counts task costs: the divider is given the costs from a {@link TaskSpecCache}, so the tasks
 *   owned at once (also those still stopping) never cost more than its capacity.</li>
 *   <li><b>Updates</b>: when the arguments change, the running handler is told to stop ({@link
 *   TaskContext#restarting()}) and started again with the new ones, under the same ownership.</li>
 *   <li><b>Failures</b>: a handler that throws is started again after a backoff; each failure is recorded
 *   ({@link TaskSpecs#fault}) with its error; more than {@code failureLimit} failures within {@code failureWindow}
 *   mark the task failing ({@code Failed}), and the backoff doubles up to {@code maxBackoff}; a run that lasts a
 *   window clears the record.</li>
 * </ul>
 *
 * <pre>{@code
 * try (TaskRunner runner = TaskRunner.builder(Divider.builder(store).pool("observers").capacity(50),
 *     ctx -> { try (Feed feed = Feed.open(ctx.args())) { while (!ctx.stopRequested()) feed.poll(); } }).build()) {
 *   runner.start();
 *   ...
 * }
 * }</pre>
 */
public final class TaskRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TaskRunner.class);

  private final TaskSpecCache cache;
  private final TaskSpecs specs;
  private final Divider divider;
  private final UnitRunner units;
  private final TaskHandler handler;
  private final int failureLimit;
  private final Duration failureWindow;
  private final Duration backoff;
  private final Duration maxBackoff;
  /** Clears the failure record of a run that lasted a window. */
  private final java.util.concurrent.ScheduledExecutorService timer =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "allot-task-timer");
        t.setDaemon(true);
        return t;
      });
  /** The attempt running for each task, by name. */
  private final Map<String, Attempt> attempts = new ConcurrentHashMap<>();
  private final TaskEvents history;
  /** Handler runs that failed, and restarts for updates, since built (atomics: {@link TaskMetrics}). */
  private final java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong restarted = new java.util.concurrent.atomic.AtomicLong();
  /** The registry of the divider builder, or null; immutable. */
  private final io.micrometer.core.instrument.MeterRegistry meters;
  private final String pool;

  private TaskRunner(Builder b) {
    this.handler = b.handler;
    this.failureLimit = b.failureLimit;
    this.failureWindow = b.failureWindow;
    this.backoff = b.backoff;
    this.maxBackoff = b.maxBackoff;
    String pool = b.divider.poolName();
    if (pool == null) {
      throw new IllegalArgumentException("pool: the divider builder needs a pool (the pool whose task specs to run)");
    }
    this.meters = b.divider.meterRegistry();
    this.pool = pool;
    this.cache = new TaskSpecCache(b.divider.store(), pool, b.specRefresh);
    this.history = new TaskEvents(io.allot.store.events.EventWriter.of(b.divider.store()), pool);
    try {
      this.specs = cache.specs();
      this.divider = b.divider.unitCost(cache::cost).build();
      this.units = UnitRunner.builder(divider, this::run).build();
    } catch (RuntimeException e) {
      cache.close();
      throw e;
    }
    cache.onChange(this::changed);
  }

  /** A runner of {@code handler} over the divider {@code divider} will build (the runner sets its unit costs). */
  public static Builder builder(Divider.Builder divider, TaskHandler handler) {
    return new Builder(divider, handler);
  }

  /** Starts the divider. */
  public void start() {
    units.start();
    if (meters != null) {
      TaskMetrics.bindRunner(meters, pool, divider.memberId(), attempts, failed, restarted);
    }
  }

  /** The divider this runner drives. */
  public Divider divider() {
    return divider;
  }

  /** Stops every handler (see {@link UnitRunner#close()}) and the spec cache. */
  @Override
  public void close() {
    try {
      units.close();
    } finally {
      timer.shutdownNow();
      cache.close();
    }
  }

  /** One run of a task's handler: the arguments it got, and whether it was told to restart. */
  private static final class Attempt implements TaskContext {
    final UnitContext unit;
    final TaskSpec spec;
    final Thread thread;
    /** Set once by an update (any thread); the handler then stops and the task starts again. */
    volatile boolean restart;

    Attempt(UnitContext unit, TaskSpec spec, Thread thread) {
      this.unit = unit;
      this.spec = spec;
      this.thread = thread;
    }

    @Override
    public String name() {
      return spec.name();
    }

    @Override
    public String args() {
      return spec.args();
    }

    @Override
    public long revision() {
      return spec.revision();
    }

    @Override
    public long token() {
      return unit.token();
    }

    @Override
    public boolean stopRequested() {
      return restart || unit.stopRequested();
    }

    @Override
    public Optional<StopReason> stopReason() {
      return unit.stopReason();
    }

    @Override
    public boolean restarting() {
      return restart;
    }

    @Override
    public boolean awaitStop(Duration timeout) {
      long end = System.nanoTime() + timeout.toNanos();
      while (!stopRequested()) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        unit.awaitStop(Duration.ofNanos(Math.min(left, 50_000_000L)));
      }
      return true;
    }
  }

  /** The spec of a running task changed: a new revision restarts its handler with the new arguments. */
  private void changed(TaskSpec spec) {
    Attempt a = attempts.get(spec.name());
    if (a != null && !spec.deleted() && spec.revision() > a.spec.revision() && !a.restart) {
      log.info("task {} updated to revision {}: restarting it with the new arguments", spec.name(), spec.revision());
      a.restart = true;
      a.thread.interrupt();
    }
  }

  /** The unit handler: runs the task's handler until the unit must stop, restarting it on updates and failures. */
  private void run(UnitContext unit) {
    String name = unit.unit();
    String member = divider.memberId();
    int failures = 0;
    long windowStart = 0;
    boolean faultRecorded = false;
    while (!unit.stopRequested()) {
      Optional<TaskSpec> found;
      try {
        found = cache.fresh(name);
      } catch (RuntimeException e) {
        log.warn("task {}: reading its spec failed ({}); retrying", name, e.toString());
        unit.awaitStop(backoff);
        continue;
      }
      if (found.isEmpty() || found.get().deleted()) {
        unit.awaitStop(Duration.ofSeconds(1)); // deleted: the table drops it and a stop follows
        continue;
      }
      TaskSpec spec = found.get();
      try {
        specs.started(name, new TaskRun(member, unit.token(), spec.revision(), 0));
      } catch (RuntimeException e) {
        log.warn("task {}: recording its start failed ({}); it runs anyway", name, e.toString());
      }
      history.started(member, spec);
      Attempt a = new Attempt(unit, spec, Thread.currentThread());
      attempts.put(name, a);
      TaskSpec latest = cache.spec(name).orElse(spec);
      if (latest.revision() > spec.revision()) {
        a.restart = true; // updated between the read and the registration
      }
      long began = System.currentTimeMillis();
      if (faultRecorded) {
        timer.schedule(() -> {
          if (attempts.get(name) == a) { // still the same run, a window later: it runs cleanly
            try {
              specs.fault(name, unit.token(), null);
            } catch (RuntimeException e) {
              log.debug("task {}: clearing its failure record failed: {}", name, e.toString());
            }
          }
        }, failureWindow.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      }
      Throwable error = null;
      try {
        handler.run(a);
      } catch (Throwable t) {
        error = t;
      } finally {
        attempts.remove(name, a);
        Thread.interrupted(); // a restart's interrupt is spent; a stop's is visible in unit.stopRequested()
      }
      if (unit.stopRequested()) {
        return;
      }
      long now = System.currentTimeMillis();
      if (a.restart) {
        restarted.incrementAndGet();
        continue; // stopped for an update (the interrupt may surface as any exception): not a failure
      }
      if (error == null) {
        log.info("task {} returned without a stop request: a long-running task has no end; starting it again", name);
        unit.awaitStop(backoff);
        continue;
      }
      if (faultRecorded && now - began >= failureWindow.toMillis()) {
        failures = 0; // it ran cleanly for a window before this failure
      }
      if (failures == 0 || now - windowStart > failureWindow.toMillis()) {
        windowStart = now;
        failures = 0;
      }
      failures++;
      failed.incrementAndGet();
      boolean failing = failures > failureLimit;
      String text = error.toString();
      history.failed(member, name, failures, failing && failures == failureLimit + 1, text);
      log.warn("task {} failed ({} in {} s{}): {}", name, failures, failureWindow.toSeconds(),
          failing ? ", failing" : "", text);
      try {
        faultRecorded = specs.fault(name, unit.token(), new TaskFault(failures, failing, text, now));
      } catch (RuntimeException e) {
        log.warn("task {}: recording its failure failed: {}", name, e.toString());
      }
      long wait = failing
          ? Math.min(maxBackoff.toMillis(), backoff.toMillis() << Math.min(20, failures - failureLimit))
          : backoff.toMillis();
      unit.awaitStop(Duration.ofMillis(wait));
    }
  }

  /** Settings of a {@link TaskRunner}; {@link #build()} names a bad one. */
  public static final class Builder {
    private final Divider.Builder divider;
    private final TaskHandler handler;
    private int failureLimit = 3;
    private Duration failureWindow = Duration.ofMinutes(1);
    private Duration backoff = Duration.ofSeconds(1);
    private Duration maxBackoff = Duration.ofSeconds(30);
    private Duration specRefresh = Duration.ofSeconds(5);

    private Builder(Divider.Builder divider, TaskHandler handler) {
      this.divider = Objects.requireNonNull(divider, "divider");
      this.handler = Objects.requireNonNull(handler, "handler");
    }

    /** Failures within {@link #failureWindow} after which the task is {@code Failed}; default 3. */
    public Builder failureLimit(int failureLimit) {
      this.failureLimit = failureLimit;
      return this;
    }

    /** The window failures are counted in; default 1 minute, at most 30 days. */
    public Builder failureWindow(Duration failureWindow) {
      this.failureWindow = failureWindow;
      return this;
    }

    /**
     * The wait before a restart after a failure; default 1 s (at most 30 days), doubled while failing up to
     * {@link #maxBackoff}.
     */
    public Builder backoff(Duration backoff) {
      this.backoff = backoff;
      return this;
    }

    /** The longest wait before a restart; default 30 s, at most 30 days. */
    public Builder maxBackoff(Duration maxBackoff) {
      this.maxBackoff = maxBackoff;
      return this;
    }

    /**
     * How often the spec cache re-reads every spec (the fallback for lost announcements); default 5 s, at most 1 day.
     */
    public Builder specRefresh(Duration specRefresh) {
      this.specRefresh = specRefresh;
      return this;
    }

    /**
     * Builds the runner and its divider (nothing runs before {@link TaskRunner#start()}).
     *
     * @throws IllegalArgumentException naming the setting that is wrong (a duration outside its bounds too: see
     *     {@link Durations})
     */
    public TaskRunner build() {
      if (failureLimit < 0) {
        throw new IllegalArgumentException("failureLimit must be >= 0 but was " + failureLimit);
      }
      Durations.check("failureWindow", failureWindow, Durations.POSITIVE, Durations.MAX_HOLD);
      Durations.check("backoff", backoff, Durations.POSITIVE, Durations.MAX_HOLD);
      Durations.check("maxBackoff", maxBackoff, Durations.POSITIVE, Durations.MAX_HOLD);
      Durations.check("specRefresh", specRefresh, Durations.POSITIVE, Durations.MAX_TIMEOUT);
      if (maxBackoff.compareTo(backoff) < 0) {
        throw new IllegalArgumentException("maxBackoff (" + maxBackoff + ") must be >= backoff (" + backoff + ")");
      }
      return new TaskRunner(this);
    }
  }
}
