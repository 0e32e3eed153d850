package io.allot.jobs;

import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports the results of attempts to the store, for a {@link JobWorker} (its handlers' results) and a
 * {@link JobDispatcher} (its endpoints' results) alike, and tells the {@link AttemptListener} how each ended.
 *
 * <ul>
 *   <li>A success is finished through the {@link FinishBatcher}: the finishes waiting together go out in one
 *       {@link JobQueue#finishAll}. A failure is one {@link JobQueue#fail} on the caller's thread, with the wait the
 *       handler asked for ({@link JobHandler.RetryAfter}) or the backoff.</li>
 *   <li>A report that cannot reach the store is tried again (after 50 ms, doubling to 1 s) until the attempt's lock
 *       would have run out; then the outcome is {@link AttemptOutcome#UNKNOWN}. The lock is not extended while its
 *       result is reported.</li>
 *   <li>A retried report that the store refuses may have been applied by an earlier try whose answer was lost: the
 *       stored job tells (same token, and the status the report sets: it was applied).</li>
 *   <li>One outcome mapping: the store's four answers, {@code UNKNOWN} when none came in time, and
 *       {@link AttemptOutcome#REJECTED} without a store call only when the store had refused to extend the lock
 *       before the report started. Each outcome is counted ({@code <name>{queue, outcome}}), then the listener is
 *       told, then the future completes.</li>
 * </ul>
 *
 * <p>Threads: the batcher's, and one retry thread ({@code allot-jobs-<queue>-report}). Guards: {@code waiting} and
 * {@code closed} by {@code waiting}; a report's retry state is touched by one step of its chain at a time; the rest
 * is immutable or atomic.
 */
final class AttemptReporter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AttemptReporter.class);
  private static final long FIRST_PAUSE_MILLIS = 50;
  private static final long MAX_PAUSE_MILLIS = 1000;

  private final JobQueue queue;
  private final LockKeeper locks;
  private final Backoff backoff;
  private final AttemptListener listener;
  private final FinishBatcher finisher;
  private final ScheduledExecutorService retries;
  private final Map<AttemptOutcome, Counter> counters;
  /** One store call of a report; null when not measured. */
  private final Timer callTimer;
  /** Reports waiting for their retry; guarded by itself. */
  private final Set<Report> waiting = new HashSet<>();
  /** Guarded by {@code waiting}. */
  private boolean closed;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Object idle = new Object();

  /**
   * @param maxBatch  most finishes in one {@code finishAll}
   * @param counters  counted by outcome ({@link #counters})
   * @param callTimer times each store call, or null
   */
  AttemptReporter(JobQueue queue, LockKeeper locks, Backoff backoff, int maxBatch, AttemptListener listener,
      Map<AttemptOutcome, Counter> counters, Timer callTimer) {
    this(queue, locks, backoff, maxBatch, 1, listener, counters, callTimer);
  }

  /** As above, with {@code finishThreads} {@code finishAll} calls in flight at most ({@link FinishBatcher}). */
  AttemptReporter(JobQueue queue, LockKeeper locks, Backoff backoff, int maxBatch, int finishThreads,
      AttemptListener listener, Map<AttemptOutcome, Counter> counters, Timer callTimer) {
    this.queue = queue;
    this.locks = locks;
    this.backoff = backoff;
    this.listener = listener;
    this.counters = counters;
    this.callTimer = callTimer;
    this.finisher = new FinishBatcher(queue, maxBatch, finishThreads);
    this.retries = Executors.newSingleThreadScheduledExecutor(Threads.named("allot-jobs-" + queue.name() + "-report-"));
  }

  /** The outcome counters {@code name{queue, outcome}} ({@code finished}, {@code retry_scheduled}, ...). */
  static Map<AttemptOutcome, Counter> counters(MeterRegistry m, String name, String queue, String description) {
    Map<AttemptOutcome, Counter> c = new EnumMap<>(AttemptOutcome.class);
    for (AttemptOutcome o : AttemptOutcome.values()) {
      c.put(o, Counter.builder(name).tag("queue", queue).tag("outcome", o.name().toLowerCase(Locale.ROOT))
          .description(description).register(m));
    }
    return c;
  }

  /**
   * Reports an attempt's result; the lock is no longer extended from now. A failure's first store call runs on this
   * thread.
   *
   * @param ranBy      where it ran (for the {@link AttemptEnd})
   * @param error      the failure to keep as the job's last error, or null on success
   * @param retryAfter the wait the handler asked for, or null for the backoff
   * @return completes with the end, after the listener was told
   */
  CompletableFuture<AttemptEnd> report(HeldLock lock, String ranBy, String error, Duration retryAfter) {
    locks.reporting(lock);
    inFlight.incrementAndGet();
    Report r = new Report(lock, ranBy, error, retryAfter);
    send(r);
    return r.done;
  }

  /** Counts an outcome that needed no report (a dispatcher's result for an attempt it does not know). */
  void count(AttemptOutcome outcome) {
    counters.get(outcome).increment();
  }

  /** Reports not ended yet. */
  int inFlight() {
    return inFlight.get();
  }

  /** Waits until no report is in flight, or until {@code deadlineNanos}; true if none is. */
  boolean awaitIdle(long deadlineNanos) throws InterruptedException {
    synchronized (idle) {
      long left;
      while (inFlight.get() > 0 && (left = deadlineNanos - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(idle, left);
      }
      return inFlight.get() == 0;
    }
  }

  private void send(Report r) {
    long t0 = System.nanoTime();
    CompletableFuture<JobOutcome> call = r.error == null ? finisher.submit(r.lock.key(), r.lock.token()) : fail(r);
    call.whenComplete((o, e) -> answered(r, t0, o, e));
  }

  private CompletableFuture<JobOutcome> fail(Report r) {
    Duration wait = r.retryAfter != null ? r.retryAfter : backoff.after(r.lock.job().attempt());
    try {
      return CompletableFuture.completedFuture(queue.fail(r.lock.key(), r.lock.token(), r.error, wait));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private void answered(Report r, long t0, JobOutcome o, Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    if (cause == null) {
      if (callTimer != null) {
        callTimer.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
      }
      AttemptOutcome outcome = AttemptOutcome.of(o);
      if (o == JobOutcome.REJECTED && r.uncertain) {
        outcome = appliedEarlier(r).orElse(AttemptOutcome.REJECTED);
      }
      end(r, outcome);
    } else if (!(cause instanceof StoreUnavailableException)) {
      log.error("queue {}: reporting {} failed", queue.name(), r.lock, cause);
      end(r, AttemptOutcome.UNKNOWN);
    } else if (r.lock.refused()) {
      end(r, AttemptOutcome.REJECTED); // the lock was gone before the report was sent: the store refuses it anyway
    } else {
      long leftMillis = TimeUnit.NANOSECONDS.toMillis(r.lock.heldUntilNanos() - locks.clock().getAsLong());
      if (leftMillis <= 0) {
        log.warn("queue {}: could not report {} before its lock ran out: {}", queue.name(), r.lock,
            cause.getMessage());
        end(r, AttemptOutcome.UNKNOWN);
        return;
      }
      r.uncertain = true; // this try may have been applied
      long pause = Math.max(1, Math.min(r.pauseMillis, leftMillis));
      r.pauseMillis = Math.min(MAX_PAUSE_MILLIS, r.pauseMillis * 2);
      retryLater(r, pause);
    }
  }

  private void retryLater(Report r, long pauseMillis) {
    synchronized (waiting) {
      if (!closed) {
        waiting.add(r);
        try {
          retries.schedule(r, pauseMillis, TimeUnit.MILLISECONDS);
          return;
        } catch (RejectedExecutionException e) {
          waiting.remove(r);
        }
      }
    }
    end(r, AttemptOutcome.UNKNOWN);
  }

  /** After a lost answer: the stored job shows whether an earlier try of this report was applied. */
  private Optional<AttemptOutcome> appliedEarlier(Report r) {
    try {
      Optional<Job> j = queue.get(r.lock.key());
      if (j.isEmpty() || j.get().token() != r.lock.token()) {
        return Optional.empty();
      }
      JobStatus s = j.get().status();
      if (r.error == null) {
        return s == JobStatus.FINISHED ? Optional.of(AttemptOutcome.FINISHED) : Optional.empty();
      }
      return s == JobStatus.FAILED ? Optional.of(AttemptOutcome.RETRY_SCHEDULED)
          : s == JobStatus.IGNORED ? Optional.of(AttemptOutcome.IGNORED) : Optional.empty();
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private void end(Report r, AttemptOutcome outcome) {
    counters.get(outcome).increment();
    if (outcome == AttemptOutcome.REJECTED) {
      log.warn("queue {}: the store refused the result of {}: its lock had been lost", queue.name(), r.lock);
    } else if (outcome == AttemptOutcome.UNKNOWN) {
      log.warn("queue {}: the outcome of {} is unknown", queue.name(), r.lock);
    }
    AttemptEnd end = new AttemptEnd(queue.name(), r.lock.key(), r.lock.token(), r.lock.job().attempt(), outcome,
        Optional.ofNullable(r.error), r.ranBy);
    try {
      listener.ended(end);
    } catch (RuntimeException e) {
      log.warn("queue {}: attempt listener failed for {}", queue.name(), end, e);
    }
    r.done.complete(end);
    if (inFlight.decrementAndGet() == 0) {
      synchronized (idle) {
        idle.notifyAll();
      }
    }
  }

  /**
   * Stops: finishes still waiting for a batch are failed, and reports waiting for a retry end as
   * {@link AttemptOutcome#UNKNOWN}. Call it once the client's attempts were reported (or it gave up waiting).
   */
  @Override
  public void close() {
    List<Report> left;
    synchronized (waiting) {
      closed = true;
      left = new ArrayList<>(waiting);
      waiting.clear();
    }
    finisher.close();
    retries.shutdownNow();
    for (Report r : left) {
      end(r, AttemptOutcome.UNKNOWN);
    }
  }

  /** The failure of a handler as the store keeps it: a {@link JobHandler.RetryAfter}'s message, else class: message. */
  static String describe(Throwable e) {
    String m = e.getMessage();
    if (e instanceof JobHandler.RetryAfter) {
      return m == null || m.isEmpty() ? e.getClass().getName() : m;
    }
    return e.getClass().getName() + (m == null ? "" : ": " + m);
  }

  /** The wait the handler asked for with {@link JobHandler.RetryAfter}, or null. */
  static Duration retryAfter(Throwable e) {
    return e instanceof JobHandler.RetryAfter ra ? ra.waitBeforeRetry() : null;
  }

  /** One attempt's report. */
  private final class Report implements Runnable {
    final HeldLock lock;
    final String ranBy;
    final String error;
    final Duration retryAfter;
    final CompletableFuture<AttemptEnd> done = new CompletableFuture<>();
    /** Touched by one step of this report's chain at a time (each step starts after the previous one ended). */
    boolean uncertain;
    long pauseMillis = FIRST_PAUSE_MILLIS;

    Report(HeldLock lock, String ranBy, String error, Duration retryAfter) {
      this.lock = lock;
      this.ranBy = ranBy;
      this.error = error;
      this.retryAfter = retryAfter;
    }

    /** The retry. */
    @Override
    public void run() {
      synchronized (waiting) {
        if (!waiting.remove(this)) {
          return; // ended by close()
        }
      }
      send(this);
    }
  }
}
