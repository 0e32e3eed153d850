package io.allot.jobs.dispatch;

import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobOutcome;

/**
 * Told, on a {@link JobDispatcher}, of every result an endpoint reported, after the store answered: {@link
 * JobOutcome#FINISHED}, {@link JobOutcome#RETRY_SCHEDULED} or {@link JobOutcome#IGNORED} when the store accepted it, {@link
 * JobOutcome#REJECTED} when it refused it (the attempt had lost its lock), or {@code null} when the store could not be
 * reached before the lock ran out (unknown). Called on a completion thread; keep it short.
 */
@FunctionalInterface
public interface DispatchListener {

  /**
   * @param job     the attempt, as claimed
   * @param endpoint the endpoint that ran it (its id from Ready, else its address)
   * @param outcome  what the store did, or null if unknown
   * @param error    the failure the endpoint reported, or null on success
   */
  void completed(ClaimedJob job, String endpoint, JobOutcome outcome, String error);
}
