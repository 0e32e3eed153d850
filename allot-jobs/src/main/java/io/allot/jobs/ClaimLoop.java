package io.allot.jobs;

import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.ClaimedJobs;
import io.allot.store.jobs.JobQueue;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link JobDispatcher}'s claims, on a thread of its own: while leading, claims as many jobs as the streams have
 * free credits (at most {@code batchSize}; the store applies the queue's rate limit inside the claim), keeps their
 * locks and hands them to the {@link EndpointStreams}. Jobs claimed while the lease went are not sent (only the lease
 * holder dispatches): their locks are left to expire. A short claim (nothing more runnable, or the rate limit) waits a
 * poll interval.
 *
 * <p>Guards: {@code stopping} is volatile; the rest is immutable, or the thread's own.
 */
final class ClaimLoop implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);

  private final JobQueue queue;
  private final String dispatcherId;
  private final int batchSize;
  private final Duration pollInterval;
  private final long waitMillis;
  private final LeaseKeeper lease;
  private final EndpointStreams streams;
  private final LockKeeper locks;
  private final Counter claimFailures;
  /** Claims the rate limit cut short ({@link ClaimedJobs#rateLimited()}). */
  private final Counter rateLimited;
  private final Counter abandoned;
  /** The queue wait of each claimed job ({@link ClaimedJob#waitedMillis}). */
  private final io.micrometer.core.instrument.Timer waited;
  private final Thread thread;
  private volatile boolean stopping;

  ClaimLoop(JobQueue queue, String dispatcherId, int batchSize, Duration pollInterval, long waitMillis,
      LeaseKeeper lease, EndpointStreams streams, LockKeeper locks, Counter claimFailures, Counter rateLimited,
      Counter abandoned, io.micrometer.core.instrument.Timer waited) {
    this.queue = queue;
    this.dispatcherId = dispatcherId;
    this.batchSize = batchSize;
    this.pollInterval = pollInterval;
    this.waitMillis = waitMillis;
    this.lease = lease;
    this.streams = streams;
    this.locks = locks;
    this.claimFailures = claimFailures;
    this.rateLimited = rateLimited;
    this.abandoned = abandoned;
    this.waited = waited;
    this.thread = Threads.named("allot-dispatch-" + queue.name() + "-").newThread(this);
  }

  void start() {
    thread.start();
  }

  /** Ends the loop after the claim in flight (whose jobs are still sent out), and waits for it. */
  void stop() throws InterruptedException {
    stopping = true;
    streams.wake();
    LockSupport.unpark(thread);
    if (thread.isAlive()) {
      thread.join();
    }
  }

  /** Claims again now rather than after the poll interval (jobs were given back). */
  void wake() {
    LockSupport.unpark(thread);
    streams.wake();
  }

  private boolean leading() {
    return !stopping && lease.leading();
  }

  @Override
  public void run() {
    while (!stopping) {
      int want;
      try {
        want = streams.awaitWant(batchSize, this::leading, waitMillis);
      } catch (InterruptedException e) {
        return;
      }
      if (want == 0) {
        continue;
      }
      ClaimedJobs got;
      long t0 = System.nanoTime();
      try {
        got = queue.claim(dispatcherId, want, locks.ttl());
      } catch (RuntimeException e) {
        claimFailures.increment();
        if (e instanceof StoreUnavailableException) {
          log.warn("queue {}: claim failed: {}", queue.name(), e.getMessage());
        } else {
          log.error("queue {}: claim failed", queue.name(), e);
        }
        idle();
        continue;
      }
      if (got.rateLimited()) {
        rateLimited.increment();
      }
      if (!got.isEmpty() && !lease.leading()) {
        abandoned.increment(got.size());
        log.info("queue {}: lost the lease while claiming; {} jobs left to expire", queue.name(), got.size());
        continue;
      }
      List<HeldLock> held = new ArrayList<>(got.size());
      for (ClaimedJob c : got) {
        long w = c.waitedMillis(locks.ttl());
        if (w >= 0) {
          waited.record(w, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        held.add(locks.hold(c, t0));
      }
      streams.push(held);
      if (got.size() < want) {
        idle(); // the queue had no more runnable jobs, or the rate limit no more permits
      }
    }
  }

  private void idle() {
    if (!stopping) {
      LockSupport.parkNanos(this, pollInterval.toNanos());
    }
  }
}
