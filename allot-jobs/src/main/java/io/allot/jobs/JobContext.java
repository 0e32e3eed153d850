package io.allot.jobs;

import io.allot.store.jobs.ClaimedJob;
import java.util.Objects;

/**
 * One attempt of one job, as the handler sees it. Thread-safe: {@link #lockLost()} may be read from any thread.
 */
public final class JobContext {
  private final String queue;
  private final ClaimedJob job;
  private final long claimedAtNanos;
  /** Set once the attempt's result is being reported (no more extensions); volatile. */
  private volatile boolean completing;
  /** Written by the lock extender, read by the handler: volatile. */
  private volatile boolean lockLost;
  /** The local monotonic time until which the lock surely holds; written by the extender only. Volatile. */
  private volatile long lockHeldUntilNanos;

  JobContext(String queue, ClaimedJob job, long claimedAtNanos, long lockHeldUntilNanos) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.job = Objects.requireNonNull(job, "job");
    this.claimedAtNanos = claimedAtNanos;
    this.lockHeldUntilNanos = lockHeldUntilNanos;
  }

  /** The queue's name. */
  public String queue() {
    return queue;
  }

  /** The job's key. */
  public String key() {
    return job.key();
  }

  /** The job's payload. */
  public String data() {
    return job.data();
  }

  /** The lock's fencing token: make writes conditional on it (resource = {@link #key()}). */
  public long token() {
    return job.token();
  }

  /** Which attempt this is, from 1. */
  public int attempt() {
    return job.attempt();
  }

  /** The job's attempt limit. */
  public int maxAttempts() {
    return job.maxAttempts();
  }

  /**
   * True once the worker knows or must assume that this attempt no longer holds the job's lock: an extension was
   * refused (the lock expired and another worker may run the job), or the store could not be reached to extend it
   * before it ran out. A long handler should check it between steps and stop; its completion will be refused.
   */
  public boolean lockLost() {
    return lockLost || System.nanoTime() - lockHeldUntilNanos >= 0;
  }

  /** The claimed job as the store returned it. */
  public ClaimedJob claimed() {
    return job;
  }

  long claimedAtNanos() {
    return claimedAtNanos;
  }

  void extendedUntil(long nanos) {
    lockHeldUntilNanos = nanos;
  }

  void completing() {
    completing = true;
  }

  boolean isCompleting() {
    return completing;
  }

  void markLockLost() {
    lockLost = true;
  }

  @Override
  public String toString() {
    return "job " + job.key() + " of queue " + queue + " (attempt " + job.attempt() + "/" + job.maxAttempts()
        + ", token " + job.token() + ")";
  }
}
