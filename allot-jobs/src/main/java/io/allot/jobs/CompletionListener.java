package io.allot.jobs;

import io.allot.store.jobs.JobOutcome;

/**
 * Told of every attempt's end, after the store answered: {@link JobOutcome#FINISHED}, {@link JobOutcome#RETRY_SCHEDULED}
 * or {@link JobOutcome#IGNORED} when the store accepted the result, {@link JobOutcome#REJECTED} when it refused it (the
 * lock had been lost: the result must not count). Called on one of the worker's threads (the handler's, or the one
 * that reports finishes in batches); keep it short.
 */
@FunctionalInterface
public interface CompletionListener {

  /**
   * @param job    the attempt
   * @param outcome what the store did
   * @param error   what the handler threw, or null if it returned
   */
  void completed(JobContext job, JobOutcome outcome, Throwable error);
}
