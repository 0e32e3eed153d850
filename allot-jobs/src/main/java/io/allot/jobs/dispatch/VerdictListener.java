package io.allot.jobs.dispatch;

import io.allot.store.jobs.JobOutcome;

/**
 * Told, on a {@link JobEndpoint}, what the store did with each result the endpoint reported: {@link
 * JobOutcome#FINISHED}, {@link JobOutcome#RETRY_SCHEDULED} or {@link JobOutcome#IGNORED} when it was accepted, {@link
 * JobOutcome#REJECTED} when the attempt had lost its lock (the result does not count; the job runs again), or
 * {@code null} when the dispatcher could not reach the store in time (unknown). Not called when the stream broke
 * before the verdict arrived. Called on a gRPC thread; keep it short.
 */
@FunctionalInterface
public interface VerdictListener {

  /**
   * @param job    the attempt
   * @param outcome what the store did, or null if unknown
   * @param error   what the handler threw, or null if it returned
   */
  void verdict(DispatchedJob job, JobOutcome outcome, Throwable error);
}
