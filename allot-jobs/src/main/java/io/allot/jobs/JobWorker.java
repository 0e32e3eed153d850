package io.allot.jobs;

import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link JobHandler} on the jobs of one {@link JobQueue}: claims up to {@code batchSize} runnable jobs at
 * a time while fewer than {@code concurrency} run and {@code prefetch} wait, hands each to a handler thread, extends
 * the locks of jobs still running or waiting every {@code lockTtl / 3}, and completes each with its token ({@link
 * JobQueue#finishAll} when the handler returns, batching the finishes of handlers that return together, {@link
 * JobQueue#fail} with the backoff when it throws). Any number of workers, in any number of
 * processes, may serve one queue: the store hands each job to one of them at a time, and a worker that dies leaves
 * its jobs to be taken again when their locks expire.
 *
 * <pre>{@code
 * try (Store store = Stores.open("postgresql://app@db/app");
 *     JobWorker worker = JobWorker.builder(store.jobQueue("emails"), job -> mailer.send(job.data()))
 *         .concurrency(8).lockTtl(Duration.ofMinutes(1)).build()) {
 *   worker.start();
 *   ...
 * }
 * }</pre>
 *
 * <p>{@link #close()} stops claiming, waits up to {@code drainTimeout} for running handlers, then interrupts the rest
 * (their jobs run again once their locks expire). A completion that cannot reach the store is retried until the
 * job's lock would have run out.
 *
 * <p>Threads: one dispatcher ({@code allot-jobs-<queue>-dispatch}), {@code concurrency} handler threads, one lock
 * extender. State: {@code running} is guarded by {@code this}; the in-flight map and the slot semaphore are
 * thread-safe; {@code idleLock} only parks the dispatcher.
 */
public final class JobWorker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobWorker.class);

  private final JobQueue queue;
  private final JobHandler handler;
  private final CompletionListener listener;
  private final String workerId;
  private final int concurrency;
  private final int batchSize;
  private final int prefetch;
  private final Duration lockTtl;
  private final Duration pollInterval;
  private final Duration drainTimeout;
  private final Backoff backoff;
  private final double rateLimit;

  private final FinishBatcher finisher;
  private final Semaphore slots;
  private final ConcurrentHashMap<String, JobContext> inFlight = new ConcurrentHashMap<>();
  private final Object idleLock = new Object();
  /** Notified whenever an attempt ends (close() waits on it for the last reports). */
  private final Object drained = new Object();
  private final ExecutorService handlers;
  private final ScheduledExecutorService extender;
  private final Thread dispatcher;
  /** 0 new, 1 running, 2 closed; guarded by {@code this}. */
  private int state;
  /** Set once close() begins; read by the dispatcher. */
  private volatile boolean stopping;

  private final Counter finished;
  private final Counter retried;
  private final Counter ignored;
  private final Counter rejected;
  private final Counter claimFailures;
  private final Counter shortClaims;
  private final Timer claimTimer;
  private final Timer completeTimer;
  private final Timer handleTimer;

  private JobWorker(Builder b) {
    this.queue = b.queue;
    this.handler = b.handler;
    this.listener = b.listener;
    this.workerId = b.workerId != null ? b.workerId : defaultWorkerId();
    this.concurrency = b.concurrency;
    this.batchSize = b.batchSize > 0 ? b.batchSize : b.concurrency;
    this.prefetch = b.prefetch >= 0 ? b.prefetch : b.concurrency;
    this.lockTtl = b.lockTtl;
    this.pollInterval = b.pollInterval;
    this.drainTimeout = b.drainTimeout;
    this.backoff = b.backoff;
    this.rateLimit = b.rateLimit;
    this.slots = new Semaphore(concurrency + prefetch); // running + claimed and waiting for a handler
    this.finisher = new FinishBatcher(queue, Math.max(this.batchSize, concurrency));
    String q = queue.name();
    this.handlers = Executors.newFixedThreadPool(concurrency, threads("allot-jobs-" + q + "-handler-"));
    this.extender = Executors.newSingleThreadScheduledExecutor(threads("allot-jobs-" + q + "-extend-"));
    this.dispatcher = threads("allot-jobs-" + q + "-dispatch-").newThread(this::dispatch);
    MeterRegistry m = b.meters;
    this.finished = outcome(m, "finished");
    this.retried = outcome(m, "retry_scheduled");
    this.ignored = outcome(m, "ignored");
    this.rejected = outcome(m, "rejected");
    this.claimFailures = Counter.builder("allot.queue.claim.failures").tag("queue", q)
        .description("claims that could not reach the store").register(m);
    this.shortClaims = Counter.builder("allot.queue.claim.short").tag("queue", q)
        .description("claims that got fewer jobs than asked: nothing more runnable, or the rate limit's permits ran "
            + "out; the worker then waits a poll interval").register(m);
    this.claimTimer = Timer.builder("allot.queue.claim").tag("queue", q).description("one claim call")
        .publishPercentiles(0.5, 0.99).register(m);
    this.completeTimer = Timer.builder("allot.queue.complete").tag("queue", q)
        .description("one finish or fail call").publishPercentiles(0.5, 0.99).register(m);
    this.handleTimer = Timer.builder("allot.queue.handle").tag("queue", q).description("one handler run")
        .register(m);
    m.gauge("allot.queue.in_flight", List.of(io.micrometer.core.instrument.Tag.of("queue", q)), inFlight,
        ConcurrentHashMap::size);
  }

  private Counter outcome(MeterRegistry m, String outcome) {
    return Counter.builder("allot.queue.jobs").tag("queue", queue.name()).tag("outcome", outcome)
        .description("attempts ended, by what the store did with them").register(m);
  }

  /**
   * A builder for a worker on {@code queue} running {@code handler}.
   *
   * @param queue   e.g. {@code store.jobQueue("emails")}
   * @param handler what to do with each job
   */
  public static Builder builder(JobQueue queue, JobHandler handler) {
    return new Builder(queue, handler);
  }

  /**
   * Starts claiming. Sets the queue's rate limit first if one was given.
   *
   * @throws IllegalStateException if started before or closed
   */
  public synchronized JobWorker start() {
    if (state != 0) {
      throw new IllegalStateException("worker " + workerId + " of queue " + queue.name() + " was already "
          + (state == 1 ? "started" : "closed"));
    }
    if (rateLimit >= 0) {
      queue.limitRate(rateLimit);
    }
    state = 1;
    long every = Math.max(1, lockTtl.toMillis() / 3);
    extender.scheduleWithFixedDelay(this::extendLocks, every, every, TimeUnit.MILLISECONDS);
    dispatcher.start();
    log.info("queue {}: worker {} started (concurrency {}, batch {}, prefetch {}, lock {} ms)", queue.name(),
        workerId, concurrency, batchSize, prefetch, lockTtl.toMillis());
    return this;
  }

  /** This worker's id, as the store records it on the jobs it locks. */
  public String workerId() {
    return workerId;
  }

  /** How many handlers run now. */
  public int running() {
    return inFlight.size();
  }

  // ---------------------------------------------------------------- the dispatcher

  private void dispatch() {
    // claim when at least `threshold` slots are free, so claims carry batches; with a prefetch buffer, while
    // `prefetch - threshold` claimed jobs still wait for a handler (no handler idles while a claim is in flight)
    int threshold = prefetch == 0 ? 1 : Math.max(1, Math.min(batchSize, (prefetch + 1) / 2));
    while (!stopping) {
      try {
        slots.acquire(threshold);
      } catch (InterruptedException e) {
        break;
      }
      int extra = Math.max(0, Math.min(batchSize - threshold, slots.availablePermits()));
      if (extra > 0 && !slots.tryAcquire(extra)) {
        extra = 0; // cannot happen: only this thread takes slots
      }
      int want = threshold + extra;
      List<ClaimedJob> got;
      long t0 = System.nanoTime();
      try {
        got = stopping ? List.of() : queue.claim(workerId, want, lockTtl);
      } catch (StoreUnavailableException e) {
        claimFailures.increment();
        slots.release(want);
        log.warn("queue {}: claim failed: {}", queue.name(), e.getMessage());
        idle(pollInterval.toNanos());
        continue;
      } catch (RuntimeException e) {
        claimFailures.increment();
        slots.release(want);
        log.error("queue {}: claim failed", queue.name(), e);
        idle(pollInterval.toNanos());
        continue;
      }
      claimTimer.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
      for (ClaimedJob c : got) {
        JobContext ctx = new JobContext(queue.name(), c, t0, t0 + lockTtl.toNanos());
        inFlight.put(c.key(), ctx); // from here its lock is extended, also while it waits for a handler
        handlers.execute(() -> run(ctx));
      }
      if (got.size() < want) {
        slots.release(want - got.size());
        shortClaims.increment();
        idle(pollInterval.toNanos()); // nothing more runnable now (or the rate limit): poll again later
      }
    }
  }

  private void idle(long nanos) {
    synchronized (idleLock) {
      long end = System.nanoTime() + nanos;
      long left;
      while (!stopping && (left = end - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(idleLock, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  // ---------------------------------------------------------------- one attempt

  private void run(JobContext ctx) {
    Throwable error = null;
    long t0 = System.nanoTime();
    try {
      handler.handle(ctx);
    } catch (Throwable e) {
      error = e;
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
    handleTimer.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    ctx.completing(); // the extender leaves it alone from now: a refused extension would only mean it is reported
    // reported asynchronously (finishes batch up with other handlers' through finishAll; a retry against an
    // unreachable store is scheduled, never slept on), so this handler thread takes the next job; the job keeps
    // its slot until the store answered
    report(ctx, error, false, 50);
  }

  /**
   * Reports the attempt's result: {@code finish} through the batcher, or {@code fail} with the backoff. While the
   * store is unreachable and the lock may still hold, retries from the extender's thread after a doubling pause; a
   * report refused after an earlier try may have been applied is checked against the stored job.
   */
  private void report(JobContext ctx, Throwable error, boolean uncertain, long pauseMillis) {
    long t0 = System.nanoTime();
    CompletableFuture<JobOutcome> call = error == null ? finisher.submit(ctx.key(), ctx.token()) : fail(ctx, error);
    call.whenComplete((o, e) -> {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      if (cause == null) {
        completeTimer.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
        JobOutcome outcome = o == JobOutcome.REJECTED && uncertain
            ? appliedEarlier(ctx, error == null).orElse(JobOutcome.REJECTED) : o;
        ended(ctx, outcome, error);
      } else if (cause instanceof StoreUnavailableException && !ctx.lockLost() && !extender.isShutdown()) {
        try {
          extender.schedule(() -> report(ctx, error, true, Math.min(1000, pauseMillis * 2)), pauseMillis,
              TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
          ended(ctx, JobOutcome.REJECTED, error);
        }
      } else {
        log.warn("queue {}: could not report {}: {}", queue.name(), ctx, cause.toString());
        ended(ctx, JobOutcome.REJECTED, error);
      }
    });
  }

  /** {@link JobQueue#fail} with the backoff for this attempt, as a completed future. */
  private CompletableFuture<JobOutcome> fail(JobContext ctx, Throwable error) {
    try {
      return CompletableFuture.completedFuture(
          queue.fail(ctx.key(), ctx.token(), describe(error), backoff.after(ctx.attempt())));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The attempt is over: its slot is free, its outcome counted and told. */
  private void ended(JobContext ctx, JobOutcome outcome, Throwable error) {
    inFlight.remove(ctx.key(), ctx);
    slots.release();
    switch (outcome) {
      case FINISHED -> finished.increment();
      case RETRY_SCHEDULED -> retried.increment();
      case IGNORED -> ignored.increment();
      case REJECTED -> rejected.increment();
      default -> throw new IllegalStateException("unknown outcome " + outcome);
    }
    if (outcome == JobOutcome.REJECTED) {
      log.warn("queue {}: the store refused the result of {}: its lock had been lost", queue.name(), ctx);
    }
    try {
      listener.completed(ctx, outcome, error);
    } catch (RuntimeException e) {
      log.warn("queue {}: completion listener failed for {}", queue.name(), ctx, e);
    }
    synchronized (drained) {
      drained.notifyAll();
    }
  }

  /** After an unknown outcome: the stored job shows whether our report was applied. */
  private Optional<JobOutcome> appliedEarlier(JobContext ctx, boolean finish) {
    try {
      Optional<Job> t = queue.get(ctx.key());
      if (t.isEmpty() || t.get().token() != ctx.token()) {
        return Optional.empty();
      }
      JobStatus s = t.get().status();
      if (finish) {
        return s == JobStatus.FINISHED ? Optional.of(JobOutcome.FINISHED) : Optional.empty();
      }
      return s == JobStatus.FAILED ? Optional.of(JobOutcome.RETRY_SCHEDULED)
          : s == JobStatus.IGNORED ? Optional.of(JobOutcome.IGNORED) : Optional.empty();
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static String describe(Throwable e) {
    String m = e.getMessage();
    return e.getClass().getName() + (m == null ? "" : ": " + m);
  }

  // ---------------------------------------------------------------- locks

  private void extendLocks() {
    for (JobContext ctx : inFlight.values()) {
      if (ctx.isCompleting()) {
        continue;
      }
      long t0 = System.nanoTime();
      try {
        if (queue.extend(ctx.key(), ctx.token(), lockTtl)) {
          ctx.extendedUntil(t0 + lockTtl.toNanos());
        } else if (!ctx.isCompleting()) { // else it just ended: its completion changed the status
          ctx.markLockLost();
          log.warn("queue {}: lock of {} was lost (expired and taken over, or retried/ignored by hand)",
              queue.name(), ctx);
        }
      } catch (StoreUnavailableException e) {
        log.warn("queue {}: could not extend the lock of {}: {}", queue.name(), ctx, e.getMessage());
      } catch (RuntimeException e) {
        log.error("queue {}: extending the lock of {} failed", queue.name(), ctx, e);
      }
    }
  }

  // ---------------------------------------------------------------- shutdown

  /**
   * Stops claiming, waits up to the drain timeout for running handlers to end and report, then interrupts the rest
   * and releases the threads. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (state == 2) {
        return;
      }
      boolean wasRunning = state == 1;
      state = 2;
      stopping = true;
      if (!wasRunning) {
        handlers.shutdownNow();
        extender.shutdownNow();
        finisher.close();
        return;
      }
    }
    synchronized (idleLock) {
      idleLock.notifyAll();
    }
    slots.release(concurrency + prefetch); // wakes a dispatcher waiting for free slots: it sees stopping and ends (never interrupted
    // mid-claim, which could leave claimed jobs locked until their locks expire)
    try {
      dispatcher.join(TimeUnit.NANOSECONDS.toMillis(drainTimeout.toNanos()) + 1);
      handlers.shutdown();
      if (!handlers.awaitTermination(drainTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("queue {}: {} handlers still running after {} ms; interrupting them (their jobs run again when "
            + "their locks expire)", queue.name(), inFlight.size(), drainTimeout.toMillis());
        handlers.shutdownNow();
        handlers.awaitTermination(drainTimeout.toMillis(), TimeUnit.MILLISECONDS);
      }
      long end = System.nanoTime() + drainTimeout.toNanos();
      synchronized (drained) { // finishes still being reported
        long left;
        while (!inFlight.isEmpty() && (left = end - System.nanoTime()) > 0) {
          TimeUnit.NANOSECONDS.timedWait(drained, left);
        }
      }
    } catch (InterruptedException e) {
      handlers.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      extender.shutdownNow();
      finisher.close(); // after the handlers: their finishes have been reported
    }
    log.info("queue {}: worker {} closed", queue.name(), workerId);
  }

  @Override
  public String toString() {
    return "JobWorker[" + queue.name() + ", " + workerId + ", running " + inFlight.size() + "]";
  }

  private static String defaultWorkerId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "localhost";
    }
    String pid = String.valueOf(ManagementFactory.getRuntimeMXBean().getPid());
    return host + ":" + pid + ":" + UUID.randomUUID().toString().substring(0, 4);
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Settings of a {@link JobWorker}; each setter checks its value and names it when bad. */
  public static final class Builder {
    private final JobQueue queue;
    private final JobHandler handler;
    private CompletionListener listener = (t, o, e) -> { };
    private String workerId;
    private int concurrency = 4;
    private int batchSize;
    private int prefetch = -1;
    private Duration lockTtl = Duration.ofSeconds(30);
    private Duration pollInterval = Duration.ofMillis(500);
    private Duration drainTimeout = Duration.ofSeconds(30);
    private Backoff backoff = Backoff.DEFAULT;
    private double rateLimit = -1;
    private MeterRegistry meters = new CompositeMeterRegistry();

    private Builder(JobQueue queue, JobHandler handler) {
      this.queue = Objects.requireNonNull(queue, "queue");
      this.handler = Objects.requireNonNull(handler, "handler");
    }

    /** Told of each attempt's end after the store answered. */
    public Builder listener(CompletionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** The id recorded on locked jobs; default {@code host:pid:random}. */
    public Builder workerId(String workerId) {
      this.workerId = JobLimits.checkWorker(workerId);
      return this;
    }

    /** Handlers running at once (1 to 10,000); default 4. */
    public Builder concurrency(int concurrency) {
      this.concurrency = checkRange("concurrency", concurrency, 1, JobLimits.MAX_BATCH);
      return this;
    }

    /** Most jobs claimed in one store call (1 to 10,000); default = concurrency. */
    public Builder batchSize(int batchSize) {
      this.batchSize = checkRange("batchSize", batchSize, 1, JobLimits.MAX_BATCH);
      return this;
    }

    /**
     * How many claimed jobs may wait for a free handler (0 to 10,000; default = concurrency). A buffer lets claims
     * carry batches while handlers work (throughput with short jobs); keep it small for long jobs, whose buffered
     * locks are held (and extended) while they wait. For many short jobs: e.g. {@code batchSize(16).prefetch(16)}.
     */
    public Builder prefetch(int prefetch) {
      this.prefetch = checkRange("prefetch", prefetch, 0, JobLimits.MAX_BATCH);
      return this;
    }

    /** How long a claimed job's lock lasts; extended every third of it while the handler runs. Default 30 s. */
    public Builder lockTtl(Duration lockTtl) {
      Objects.requireNonNull(lockTtl, "lockTtl");
      if (lockTtl.toMillis() < 30) {
        throw new IllegalArgumentException("lockTtl must be at least 30 ms but was " + lockTtl);
      }
      this.lockTtl = lockTtl;
      return this;
    }

    /** How long to wait before claiming again when the queue had fewer runnable jobs than asked. Default 500 ms. */
    public Builder pollInterval(Duration pollInterval) {
      Objects.requireNonNull(pollInterval, "pollInterval");
      if (pollInterval.isNegative() || pollInterval.isZero()) {
        throw new IllegalArgumentException("pollInterval must be > 0 but was " + pollInterval);
      }
      this.pollInterval = pollInterval;
      return this;
    }

    /** How long {@link #close()} waits for running handlers. Default 30 s. */
    public Builder drainTimeout(Duration drainTimeout) {
      Objects.requireNonNull(drainTimeout, "drainTimeout");
      if (drainTimeout.isNegative()) {
        throw new IllegalArgumentException("drainTimeout must be >= 0 but was " + drainTimeout);
      }
      this.drainTimeout = drainTimeout;
      return this;
    }

    /** The wait before a failed job's next attempt. Default {@link Backoff#DEFAULT}. */
    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /**
     * Sets the queue's rate limit at start (jobs per second over every worker of the queue, kept in the store;
     * 0 removes it). Default: leave the queue's limit as it is.
     */
    public Builder rateLimit(double jobsPerSecond) {
      this.rateLimit = JobLimits.checkRate(jobsPerSecond);
      return this;
    }

    /** Where the worker's meters go ({@code allot.queue.*}, tagged with the queue). Default: nowhere. */
    public Builder meterRegistry(MeterRegistry meters) {
      this.meters = Objects.requireNonNull(meters, "meters");
      return this;
    }

    /** The worker, not started yet ({@link JobWorker#start()}). */
    public JobWorker build() {
      return new JobWorker(this);
    }

    private static int checkRange(String name, int v, int min, int max) {
      if (v < min || v > max) {
        throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "] but was " + v);
      }
      return v;
    }
  }

  /** For tests: the last context given to the handler of {@code key}, if it runs now. */
  Optional<JobContext> running(String key) {
    return Optional.ofNullable(inFlight.get(key));
  }

}
