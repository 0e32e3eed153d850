package io.allot.jobs;

import io.allot.store.jobs.ClaimedJob;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * One attempt of one job, as the {@link JobHandler} sees it: the same in a {@link JobWorker} and behind a
 * {@link JobEndpoint}. Thread-safe: {@link #stopRequested()} may be read from any thread.
 */
public final class JobContext {
  private final String queue;
  private final ClaimedJob job;
  /** The client's view of whether this attempt still counts (thread-safe, non-blocking). */
  private final BooleanSupplier stop;

  JobContext(String queue, ClaimedJob job, BooleanSupplier stop) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.job = Objects.requireNonNull(job, "job");
    this.stop = Objects.requireNonNull(stop, "stop");
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

  /** The job's attempt limit: a failure on the last attempt makes the job ignored. */
  public int maxAttempts() {
    return job.maxAttempts();
  }

  /**
   * True once this attempt no longer counts: stop. Its result will be refused (or cannot be delivered), and the job
   * may already run again elsewhere. In a {@link JobWorker}: the store refused to extend the lock (it expired and was
   * taken over, or the job was retried or ignored by hand), or the lock ran out before it could be extended. Behind a
   * {@link JobEndpoint}: the dispatcher said the lock is lost, or the stream the job came on ended (the endpoint also
   * interrupts the handler then). Once true it stays true. A long handler checks it between steps.
   */
  public boolean stopRequested() {
    return stop.getAsBoolean();
  }

  @Override
  public String toString() {
    return "job " + job.key() + " of queue " + queue + " (attempt " + job.attempt() + "/" + job.maxAttempts()
        + ", token " + job.token() + ")";
  }
}
