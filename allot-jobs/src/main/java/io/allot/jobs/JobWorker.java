package io.allot.jobs;

import io.allot.store.Durations;
import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.ClaimedJobs;
import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobQueue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link JobHandler} on the jobs of one {@link JobQueue}: claims runnable jobs (up to {@code batchSize} at a
 * time) while fewer than {@code concurrency} run and {@code prefetch} wait for a handler or their report, the
 * prefetch adapting to the handlers' run time and the store's round trips unless set (no tuning
 * for many short jobs, a small prefetch for long ones), hands each to a handler thread, keeps
 * the locks of jobs running or waiting ({@link LockKeeper}), and reports each result with its token
 * ({@link AttemptReporter}: finishes of handlers that return together in one {@link JobQueue#finishAll}, a failure
 * with the backoff or the handler's {@link JobHandler.RetryAfter}). Any number of workers, in any number of
 * processes, may serve one queue: the store hands each job to one of them at a time, and a worker that dies leaves
 * its jobs to be taken again when their locks expire. The same handler runs unchanged behind a {@link JobEndpoint}.
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
 * <p>{@link #close()} stops claiming, waits up to {@code drainTimeout} for running handlers, then interrupts the rest.
 * What it claimed and will not run to its end is given back ({@link JobQueue#giveBack}: runnable again at once, the
 * attempt not counted, see {@link GiveBack}): jobs claimed while it closed, jobs still waiting for a handler, and
 * jobs whose handler throws once close interrupted it (that interrupt is close's own doing, never reported as a
 * failure). A handler that ignores the interrupt keeps its job until the lock expires; then that attempt counts.
 * A report that cannot reach the store is retried until the job's lock would have run out; then its outcome is
 * {@link AttemptOutcome#UNKNOWN}.
 *
 * <p>Threads: one claim loop ({@code allot-jobs-<queue>-dispatch}), {@code concurrency} handler threads, one lock
 * extender, the reporter's two. State: {@code state} is guarded by {@code this}; the in-flight map and the slot
 * semaphore are thread-safe; {@code idleLock} only parks the claim loop; {@code drained} only wakes {@code close()};
 * {@code stopping} and {@code interrupting} are volatile flags set once by {@code close()}.
 */
public final class JobWorker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobWorker.class);

  /** The most jobs one claim asks for unless {@link Builder#batchSize} says otherwise. */
  public static final int AUTO_MAX_BATCH = 256;
  /** The adaptive prefetch's cap unless {@link Builder#prefetch} sets a prefetch. */
  public static final int AUTO_MAX_PREFETCH = 512;
  /** The most finishAll calls a worker has in flight at once. */
  private static final int FINISH_CALLS = 2;

  private final JobQueue queue;
  private final JobHandler handler;
  private final String workerId;
  private final int concurrency;
  /** The prefetch's cap (the user's prefetch, or {@link #AUTO_MAX_PREFETCH}); the slots are concurrency + this. */
  private final int maxPrefetch;
  /** Adapts the prefetch and the claim size ({@link ClaimSizer}); thread-safe. */
  private final ClaimSizer sizer;
  private final Duration lockTtl;
  private final Duration pollInterval;
  private final Duration drainTimeout;
  private final double rateLimit;

  private final LockKeeper locks;
  private final AttemptReporter reporter;
  private final GiveBack giveBack;
  private final Semaphore slots;
  /** The attempts claimed and not reported yet, by key. */
  private final ConcurrentHashMap<String, JobContext> inFlight = new ConcurrentHashMap<>();
  private final Object idleLock = new Object();
  /** Notified whenever an attempt ends (close() waits on it for the last reports). */
  private final Object drained = new Object();
  private final ExecutorService handlers;
  private final ScheduledExecutorService extender;
  private final Thread claimer;
  /** 0 new, 1 running, 2 closed; guarded by {@code this}. */
  private int state;
  /** Set once close() begins; read by the claim loop. */
  private volatile boolean stopping;
  /** Set by close() before it interrupts the handlers: a handler that throws from then on gives its job back. */
  private volatile boolean interrupting;

  private final Counter claimFailures;
  private final Counter shortClaims;
  private final Counter rateLimitedClaims;
  private final Timer claimTimer;
  private final Timer handleTimer;
  private final Timer waitTimer;

  private JobWorker(Builder b) {
    this.queue = b.queue;
    this.handler = b.handler;
    this.workerId = b.workerId != null ? b.workerId : Threads.defaultId();
    this.concurrency = b.concurrency;
    int maxBatch = b.batchSize > 0 ? b.batchSize : AUTO_MAX_BATCH;
    this.maxPrefetch = b.prefetch >= 0 ? b.prefetch : AUTO_MAX_PREFETCH;
    this.sizer = new ClaimSizer(concurrency, maxPrefetch, maxBatch, b.prefetch < 0);
    this.lockTtl = b.lockTtl;
    this.pollInterval = b.pollInterval;
    this.drainTimeout = b.drainTimeout;
    this.rateLimit = b.rateLimit;
    this.slots = new Semaphore(concurrency + maxPrefetch); // running + claimed and waiting for a handler or report
    String q = queue.name();
    MeterRegistry m = b.meters;
    this.locks = new LockKeeper(queue, lockTtl, System::nanoTime);
    // FINISH_CALLS finishAll calls in flight (many short jobs): a batch gathers while the other is answered (a lone
    // finish still goes out at once); with the claim and the lock extender, that fits the store's default pool (4)
    this.reporter = new AttemptReporter(queue, locks, b.backoff, Math.max(maxBatch, concurrency), FINISH_CALLS,
        b.reported(),
        AttemptReporter.counters(m, "allot.jobs.attempts", q, "attempts ended, by what the store did with them"),
        Timer.builder("allot.jobs.complete").tag("queue", q).description("one finish or fail call")
            .publishPercentiles(0.5, 0.99).register(m));
    this.giveBack = new GiveBack(queue, workerId, locks, Counter.builder("allot.jobs.given.back").tag("queue", q)
        .description("claimed jobs a closing worker gave back to the store, their attempts not counted").register(m));
    this.handlers = Executors.newFixedThreadPool(concurrency, Threads.named("allot-jobs-" + q + "-handler-"));
    this.extender = Executors.newSingleThreadScheduledExecutor(Threads.named("allot-jobs-" + q + "-extend-"));
    this.claimer = Threads.named("allot-jobs-" + q + "-dispatch-").newThread(this::claimLoop);
    this.claimFailures = Counter.builder("allot.jobs.claim.failures").tag("queue", q)
        .description("claims that could not reach the store").register(m);
    this.shortClaims = Counter.builder("allot.jobs.claim.short").tag("queue", q)
        .description("claims that got fewer jobs than asked: nothing more runnable, or the rate limit's permits ran "
            + "out (those are also counted in allot.jobs.rate.limited); the worker then waits a poll interval")
        .register(m);
    this.rateLimitedClaims = Counter.builder("allot.jobs.rate.limited").tag("queue", q)
        .description("claims the queue's rate limit cut short (a runnable job left for want of a permit): "
            + "rate-limit waits; the worker then waits a poll interval").register(m);
    this.claimTimer = Timer.builder("allot.jobs.claim").tag("queue", q).description("one claim call")
        .publishPercentiles(0.5, 0.99).register(m);
    this.handleTimer = Timer.builder("allot.jobs.run").tag("queue", q).description("one attempt from its start to its end (the handler)")
        .register(m);
    this.waitTimer = Timer.builder("allot.jobs.wait").tag("queue", q)
        .description("how long a claimed job had waited in the queue, runnable, before its claim (store time: from "
            + "its enqueue, or the end of its delay or backoff, to the claim)")
        .publishPercentiles(0.5, 0.99).register(m);
    m.gauge("allot.jobs.in.flight", List.of(Tag.of("queue", q)), inFlight, ConcurrentHashMap::size);
    FunctionCounter.builder("allot.jobs.lock.extensions", locks, LockKeeper::extensions).tag("queue", q)
        .description("job locks extended while their handler ran").register(m);
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
    long every = Math.max(1, lockTtl.toMillis() / 6); // extended with a third to a half of the lock gone (LockKeeper)
    extender.scheduleWithFixedDelay(this::extendLocks, every, every, TimeUnit.MILLISECONDS);
    claimer.start();
    log.info("queue {}: worker {} started (concurrency {}, claims of at most {}, prefetch {}, lock {} ms)",
        queue.name(), workerId, concurrency, sizer.maxBatch(),
        sizer.adaptive() ? "adaptive up to " + maxPrefetch : String.valueOf(maxPrefetch), lockTtl.toMillis());
    return this;
  }

  /** This worker's id, as the store records it on the jobs it locks. */
  public String workerId() {
    return workerId;
  }

  /** How many attempts this worker holds now: running, waiting for a handler, or being reported. */
  public int running() {
    return inFlight.size();
  }

  // ---------------------------------------------------------------- the claim loop

  private void claimLoop() {
    try {
      claimUntilStopped();
    } catch (Throwable e) { // never dies silently
      log.error("queue {}: the claim loop of worker {} ended: it claims no more", queue.name(), workerId, e);
      throw e;
    }
  }

  private void claimUntilStopped() {
    while (!stopping) {
      // claim when at least `threshold` slots are free, so claims carry batches; with a prefetch buffer, while
      // `prefetch - threshold` claimed jobs still wait for a handler (no handler idles while a claim is in flight).
      // The semaphore holds concurrency + maxPrefetch slots; the prefetch now may be smaller: the slots above it
      // (`reserve`) must be free too, so they are taken with the claim's and given back at once (only this thread
      // takes slots, so the claim's stay free meanwhile)
      int prefetch = sizer.prefetch();
      int threshold = sizer.threshold();
      int reserve = maxPrefetch - prefetch;
      try {
        slots.acquire(threshold + reserve);
      } catch (InterruptedException e) {
        break;
      }
      slots.release(reserve);
      int extra = Math.max(0, Math.min(sizer.maxBatch() - threshold, slots.availablePermits() - reserve));
      if (extra > 0 && !slots.tryAcquire(extra)) {
        extra = 0; // cannot happen: only this thread takes slots
      }
      int want = threshold + extra;
      ClaimedJobs got;
      long t0 = System.nanoTime();
      try {
        got = stopping ? ClaimedJobs.none() : queue.claim(workerId, want, lockTtl);
      } catch (RuntimeException e) {
        claimFailures.increment();
        slots.release(want);
        if (e instanceof StoreUnavailableException) {
          log.warn("queue {}: claim failed: {}", queue.name(), e.getMessage());
        } else {
          log.error("queue {}: claim failed", queue.name(), e);
        }
        idle(pollInterval.toNanos());
        continue;
      }
      long took = System.nanoTime() - t0;
      claimTimer.record(took, TimeUnit.NANOSECONDS);
      sizer.claimed(took);
      handOver(got, t0);
      if (got.rateLimited()) {
        rateLimitedClaims.increment();
      }
      if (got.size() < want) {
        slots.release(want - got.size());
        shortClaims.increment();
        idle(pollInterval.toNanos()); // nothing more runnable now (or the rate limit): poll again later
      }
    }
  }

  /**
   * Hands the claimed jobs to the handlers; while closing (or once the handler pool is shut) gives them back instead,
   * with their slots.
   */
  private void handOver(List<ClaimedJob> got, long sentNanos) {
    List<HeldLock> back = new ArrayList<>();
    for (ClaimedJob c : got) {
      long waited = c.waitedMillis(lockTtl);
      if (waited >= 0) {
        waitTimer.record(waited, TimeUnit.MILLISECONDS);
      }
      HeldLock lock = locks.hold(c, sentNanos); // from here its lock is extended, also while it waits for a handler
      if (stopping) {
        back.add(lock);
        continue;
      }
      JobContext ctx = new JobContext(queue.name(), c, lock::stopRequested);
      inFlight.put(c.key(), ctx);
      try {
        handlers.execute(new Attempt(ctx, lock));
      } catch (RejectedExecutionException e) { // close() shut the pool meanwhile
        inFlight.remove(c.key(), ctx);
        back.add(lock);
      }
    }
    if (!back.isEmpty()) {
      giveBack.giveBack(back, "claimed while the worker closed");
      slots.release(back.size());
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

  /** One claimed job on its way to a handler (a named task: close() gives back those that never started). */
  private final class Attempt implements Runnable {
    final JobContext ctx;
    final HeldLock lock;

    Attempt(JobContext ctx, HeldLock lock) {
      this.ctx = ctx;
      this.lock = lock;
    }

    @Override
    public void run() {
      JobWorker.this.run(ctx, lock);
    }
  }

  private void run(JobContext ctx, HeldLock lock) {
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
    long ran = System.nanoTime() - t0;
    handleTimer.record(ran, TimeUnit.NANOSECONDS);
    sizer.ran(ran);
    if (error != null && interrupting) { // stopped by close's interrupt: not a failure of the job
      // the interrupt is close's own and has done its work: the give-back's store call must not see it (a client
      // that honours interrupts, e.g. HikariCP waiting for a connection, would refuse the call: seen in CI)
      boolean interrupted = Thread.interrupted();
      try {
        giveBack.giveBack(List.of(lock), "interrupted by close after the drain timeout");
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      ended(ctx);
      return;
    }
    // reported asynchronously (finishes batch up with other handlers'; a retry against an unreachable store is
    // scheduled, never slept on), so this handler thread takes the next job; the job keeps its slot until the end
    String failure = error == null ? null : AttemptReporter.describe(error);
    long r0 = System.nanoTime();
    reporter.report(lock, workerId, failure, error == null ? null : AttemptReporter.retryAfter(error))
        .thenRun(() -> {
          sizer.reported(System.nanoTime() - r0);
          ended(ctx);
        });
  }

  /** The attempt is over (the listener was told): its slot is free. */
  private void ended(JobContext ctx) {
    inFlight.remove(ctx.key(), ctx);
    slots.release();
    synchronized (drained) {
      drained.notifyAll();
    }
  }

  private void extendLocks() {
    try {
      locks.pass((lock, why) -> { }); // the handler sees it: ctx.stopRequested()
    } catch (RuntimeException e) {
      log.error("queue {}: extending locks failed", queue.name(), e);
    }
  }

  // ---------------------------------------------------------------- shutdown

  /**
   * Stops claiming, waits up to the drain timeout for running handlers to end and report, then interrupts the rest
   * and gives back their jobs and those still waiting for a handler (a claim still in flight gives back its own when
   * it returns), and releases the threads. Idempotent.
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
        reporter.close();
        return;
      }
    }
    synchronized (idleLock) {
      idleLock.notifyAll();
    }
    // wakes a claim loop waiting for free slots: it sees stopping and ends (never interrupted mid-claim, which could
    // leave claimed jobs locked until their locks expire)
    slots.release(concurrency + maxPrefetch + 1);
    try {
      claimer.join(TimeUnit.NANOSECONDS.toMillis(drainTimeout.toNanos()) + 1);
      handlers.shutdown();
      if (!handlers.awaitTermination(drainTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("queue {}: {} jobs still running or waiting after {} ms; interrupting the handlers (their jobs are "
            + "given back, the attempts not counted)", queue.name(), inFlight.size(), drainTimeout.toMillis());
        interrupting = true;
        giveBackNeverStarted(handlers.shutdownNow());
        handlers.awaitTermination(drainTimeout.toMillis(), TimeUnit.MILLISECONDS);
      }
      long end = System.nanoTime() + drainTimeout.toNanos();
      synchronized (drained) { // results still being reported
        long left;
        while (!inFlight.isEmpty() && (left = end - System.nanoTime()) > 0) {
          TimeUnit.NANOSECONDS.timedWait(drained, left);
        }
      }
      claimer.join(TimeUnit.NANOSECONDS.toMillis(drainTimeout.toNanos()) + 1); // a claim in flight gives back
    } catch (InterruptedException e) {
      interrupting = true;
      giveBackNeverStarted(handlers.shutdownNow());
      Thread.currentThread().interrupt();
    } finally {
      extender.shutdownNow();
      reporter.close(); // after the handlers: their results have been reported
    }
    log.info("queue {}: worker {} closed", queue.name(), workerId);
  }

  /** The jobs that waited for a handler when the pool shut: given back, their slots freed. */
  private void giveBackNeverStarted(List<Runnable> never) {
    List<HeldLock> back = new ArrayList<>();
    for (Runnable r : never) {
      if (r instanceof Attempt a) {
        back.add(a.lock);
      }
    }
    giveBack.giveBack(back, "waiting for a handler when the worker closed");
    for (Runnable r : never) {
      if (r instanceof Attempt a) {
        ended(a.ctx);
      }
    }
  }

  @Override
  public String toString() {
    return "JobWorker[" + queue.name() + ", " + workerId + ", running " + inFlight.size() + "]";
  }

  /** Settings of a {@link JobWorker}; each setter checks its value and names it when bad. */
  public static final class Builder extends ClaimSettings<Builder> {
    private final JobQueue queue;
    private final JobHandler handler;
    private String workerId;
    private int concurrency = 4;
    private int batchSize;
    private int prefetch = -1;
    private Duration pollInterval = Duration.ofMillis(500);

    private Builder(JobQueue queue, JobHandler handler) {
      this.queue = Objects.requireNonNull(queue, "queue");
      this.handler = Objects.requireNonNull(handler, "handler");
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

    /**
     * Most jobs claimed in one store call (1 to 10,000); default {@link #AUTO_MAX_BATCH}. The worker claims as many
     * as its free slots allow, up to this: it needs no tuning.
     */
    public Builder batchSize(int batchSize) {
      this.batchSize = checkRange("batchSize", batchSize, 1, JobLimits.MAX_BATCH);
      return this;
    }

    /**
     * Sets a fixed prefetch: how many claimed jobs may wait for a free handler or for their result's report (0 to
     * 10,000). By default the prefetch adapts (up to {@link #AUTO_MAX_PREFETCH}): from the
     * handlers' run time, the claim's and the report's round trips (Little's law), many short jobs get a large one
     * (large claims, a claim in flight while the handlers run, large batched finishes), long jobs a prefetch of 1
     * (waiting jobs hold, and extend, their locks). Set it to pin it, e.g. {@code prefetch(0)} for jobs so long that
     * none should wait claimed.
     */
    public Builder prefetch(int prefetch) {
      this.prefetch = checkRange("prefetch", prefetch, 0, JobLimits.MAX_BATCH);
      return this;
    }

    /**
     * How long to wait before claiming again when the queue had fewer runnable jobs than asked: positive, at most
     * 1 day; default 500 ms.
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = Durations.check("pollInterval", pollInterval, Durations.POSITIVE, Durations.MAX_TIMEOUT);
      return this;
    }

    @Override
    Builder self() {
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
