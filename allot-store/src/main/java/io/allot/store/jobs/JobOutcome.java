package io.allot.store.jobs;

/** What the store did with a completion or a failure report ({@link JobQueue#finish}, {@link JobQueue#fail}). */
public enum JobOutcome {
  /** Accepted: the job is {@link JobStatus#FINISHED}. */
  FINISHED,
  /** Accepted: the job is {@link JobStatus#FAILED} and runs again after its backoff. */
  RETRY_SCHEDULED,
  /** Accepted: the job used its last attempt and is {@link JobStatus#IGNORED}. */
  IGNORED,
  /**
   * Refused, nothing changed: the token no longer holds the job's lock (it expired and another worker took the job,
   * or the job was retried, ignored or finished meanwhile). The caller's result must be thrown away.
   */
  REJECTED;

  /** True unless {@link #REJECTED}. */
  public boolean accepted() {
    return this != REJECTED;
  }
}
