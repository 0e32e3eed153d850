package io.allot.jobs;

import io.allot.store.jobs.JobOutcome;

/**
 * How an attempt ended, as far as its client knows: what the store did with its result ({@link JobOutcome}'s four
 * answers), or {@link #UNKNOWN} when the store's answer did not come before the attempt's lock ran out. Told to an
 * {@link AttemptListener} by a {@link JobWorker}, a {@link JobDispatcher} and a {@link JobEndpoint} alike.
 */
public enum AttemptOutcome {
  /** Accepted: the job is finished (status 50). */
  FINISHED,
  /** Accepted: the job is failed (status 20) and runs again after its wait. */
  RETRY_SCHEDULED,
  /** Accepted: the job used its last attempt and is ignored (status 70). */
  IGNORED,
  /** Refused: the attempt's token no longer held the job's lock; its result does not count. */
  REJECTED,
  /**
   * Unknown: the store could not be reached (or did not answer) before the attempt's lock ran out. The result may
   * have been applied; if not, the job runs again once its lock expired. Never reported as {@link #REJECTED}.
   */
  UNKNOWN;

  /** True for {@link #FINISHED}, {@link #RETRY_SCHEDULED} and {@link #IGNORED}: the store took the result. */
  public boolean accepted() {
    return this == FINISHED || this == RETRY_SCHEDULED || this == IGNORED;
  }

  /** The store's answer as an attempt outcome. */
  public static AttemptOutcome of(JobOutcome outcome) {
    return switch (outcome) {
      case FINISHED -> FINISHED;
      case RETRY_SCHEDULED -> RETRY_SCHEDULED;
      case IGNORED -> IGNORED;
      case REJECTED -> REJECTED;
    };
  }
}
