package io.allot.jobs;

import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link JobDispatcher}'s jobs of broken or silent streams, waiting until their endpoint has surely stopped them
 * ({@link EndpointStopTime}), then given back to the queue so another endpoint runs them again well before their
 * locks would expire.
 *
 * <p>The rule: a dropped job is released at its stream's stop time, not before (the endpoint may still run it until
 * then: a cut network looks like a dead endpoint). Its lock stays kept (extended by the {@link LockKeeper}) until
 * then, so no one else can claim it. The release is a failure report with the attempt's own token and no wait
 * ({@link AttemptReporter}): the job is runnable at once, the attempt counts (an endpoint that died on it used it; on
 * the last attempt the job is ignored, as when a lock expires), and a late result of that attempt is refused by the
 * store. Jobs of a stream that was never sent a deadline are left to expire (abandoned), as are jobs whose lock was
 * lost meanwhile.
 *
 * <p>No threads: the control thread calls {@link #releaseDue} each tick; the reports run on {@code completions}.
 * Guards: {@code waiting} by itself.
 */
final class DroppedJobs {
  private static final Logger log = LoggerFactory.getLogger(DroppedJobs.class);

  /** One dropped attempt: its lock, where it ran, why it was dropped, and when its endpoint surely stopped it. */
  private record Dropped(HeldLock lock, String endpoint, String why, long releaseAtNanos) {}

  private final String queue;
  private final LockKeeper locks;
  private final AttemptReporter reporter;
  private final Executor completions;
  private final Runnable released;
  private final Counter releasedCount;
  private final Counter abandoned;
  /** Guarded by itself. */
  private final List<Dropped> waiting = new ArrayList<>();

  /**
   * @param released run after each release the store took (wakes the claim loop)
   * @param releasedCount counts the released attempts
   * @param abandoned counts the attempts left to expire
   */
  DroppedJobs(String queue, LockKeeper locks, AttemptReporter reporter, Executor completions, Runnable released,
      Counter releasedCount, Counter abandoned) {
    this.queue = queue;
    this.locks = locks;
    this.reporter = reporter;
    this.completions = completions;
    this.released = released;
    this.releasedCount = releasedCount;
    this.abandoned = abandoned;
  }

  /**
   * The stream to {@code endpoint} was dropped with these jobs. {@code stopTime} is read now (its owner's lock held by
   * the caller, or the stream no longer sending).
   */
  void add(List<HeldLock> jobs, String endpoint, String why, EndpointStopTime stopTime) {
    if (jobs.isEmpty()) {
      return;
    }
    if (stopTime == null || !stopTime.known()) {
      jobs.forEach(locks::abandon);
      abandoned.increment(jobs.size());
      log.warn("queue {}: stream to endpoint {} broke ({}); its {} jobs run again after their locks expire", queue,
          endpoint, why, jobs.size());
      return;
    }
    long at = stopTime.stoppedByNanos();
    synchronized (waiting) {
      for (HeldLock l : jobs) {
        waiting.add(new Dropped(l, endpoint, why, at));
      }
    }
    log.warn("queue {}: stream to endpoint {} broke ({}); its {} jobs run again once it has surely stopped them, in "
        + "{} ms", queue, endpoint, why, jobs.size(), Math.max(0, (at - locks.clock().getAsLong()) / 1_000_000));
  }

  /** How many dropped jobs wait for their release. */
  int size() {
    synchronized (waiting) {
      return waiting.size();
    }
  }

  /** Releases every dropped job whose endpoint has surely stopped it by {@code nowNanos}. Control thread. */
  void releaseDue(long nowNanos) {
    List<Dropped> due = new ArrayList<>();
    synchronized (waiting) {
      for (Iterator<Dropped> it = waiting.iterator(); it.hasNext(); ) {
        Dropped d = it.next();
        if (nowNanos - d.releaseAtNanos() > 0) {
          due.add(d);
          it.remove();
        }
      }
    }
    for (Dropped d : due) {
      if (d.lock().stopRequested()) {
        locks.abandon(d.lock()); // its lock was lost meanwhile: the store hands the job out again anyway
        abandoned.increment();
        continue;
      }
      try {
        completions.execute(() -> release(d));
      } catch (RejectedExecutionException e) {
        locks.abandon(d.lock()); // closing: left to expire
        abandoned.increment();
      }
    }
  }

  private void release(Dropped d) {
    String error = "endpoint " + d.endpoint() + " stopped answering while it ran this attempt (" + d.why()
        + "); given back once it had surely stopped";
    reporter.report(d.lock(), d.endpoint(), error, Duration.ZERO).thenAccept(end -> {
      if (end.outcome().accepted()) {
        releasedCount.increment();
        released.run();
      }
    });
  }
}
