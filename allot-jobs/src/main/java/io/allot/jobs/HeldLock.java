package io.allot.jobs;

import io.allot.store.jobs.ClaimedJob;
import java.util.function.LongSupplier;

/**
 * The lock of one claimed attempt, as its client knows it: until when it surely holds (local monotonic time: the
 * claim or last extension was <em>sent</em> at {@code t}, so the store keeps the lock at least until {@code t + ttl}),
 * and whether this attempt still counts. Made and extended by the {@link LockKeeper}.
 *
 * <p>Guards: every mutable field is volatile, for lock-free reads. {@code heldUntilNanos} is written by the keeper's
 * pass only (one thread); {@code refused} and {@code reporting} are set under {@code this} (so a refusal counts only
 * if it came before the report started); {@code stopped} is set by any thread and never cleared.
 */
final class HeldLock {
  private final ClaimedJob job;
  private final LongSupplier nanos;
  /** Local monotonic time until which the store surely keeps the lock. */
  private volatile long heldUntilNanos;
  /** The store refused an extension: this token no longer holds the lock (a result would be refused too). */
  private volatile boolean refused;
  /** This attempt no longer counts (refused, or the lock ran out unextended); sticky. */
  private volatile boolean stopped;
  /** The attempt's result is being reported: the lock is no longer extended. */
  private volatile boolean reporting;

  HeldLock(ClaimedJob job, long heldUntilNanos, LongSupplier nanos) {
    this.job = job;
    this.heldUntilNanos = heldUntilNanos;
    this.nanos = nanos;
  }

  ClaimedJob job() {
    return job;
  }

  String key() {
    return job.key();
  }

  long token() {
    return job.token();
  }

  long heldUntilNanos() {
    return heldUntilNanos;
  }

  /** True once the attempt no longer counts: an extension was refused, or the lock ran out. Stays true. */
  boolean stopRequested() {
    if (stopped) {
      return true;
    }
    if (nanos.getAsLong() - heldUntilNanos >= 0) {
      stopped = true;
      return true;
    }
    return false;
  }

  /** True if the store refused to extend the lock (before the result was reported). */
  boolean refused() {
    return refused;
  }

  boolean isReporting() {
    return reporting;
  }

  /** The lock keeper's pass: an extension sent at {@code sentNanos} was applied. False if it came too late to count. */
  boolean extended(long sentNanos, long ttlNanos) {
    if (stopRequested()) {
      return false;
    }
    heldUntilNanos = sentNanos + ttlNanos;
    return true;
  }

  /**
   * The lock keeper's pass: the store refused an extension. Ignored (false) once the result is being reported: the
   * refusal may then be the report itself. So {@link #refused()} means the lock was gone before the report was sent.
   */
  synchronized boolean refuse() {
    if (reporting) {
      return false;
    }
    refused = true;
    stopped = true;
    return true;
  }

  /** The result is about to be reported; no more extensions. */
  synchronized void startReporting() {
    reporting = true;
  }

  @Override
  public String toString() {
    return "job " + job.key() + " (attempt " + job.attempt() + "/" + job.maxAttempts() + ", token " + job.token() + ")";
  }
}
