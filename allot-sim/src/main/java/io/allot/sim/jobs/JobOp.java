package io.allot.sim.jobs;

/** What a simulated client of a job queue does in one step. */
public enum JobOp {
  /** Enqueue 1 to 5 new jobs (priority −2 to 2, 1 to 3 attempts, some delayed). */
  ENQUEUE,
  /** Claim 1 to {@link JobMix#claimMax()} jobs with a random lock TTL. */
  CLAIM,
  /** Extend the lock of a job the client holds (sometimes with a stale token). */
  EXTEND,
  /** Finish a job the client holds (sometimes with a stale token). */
  FINISH,
  /** Finish every job the client holds in one {@code finishAll}. */
  FINISH_ALL,
  /** Fail a job the client holds, with a random backoff. */
  FAIL,
  /** Retry by hand some keys, most of them jobs finished earlier. */
  RETRY,
  /** Ignore by hand some keys. */
  IGNORE,
  /** Purge final jobs of a random age. */
  PURGE,
  /** Set the queue's rate limit (0 removes it). */
  LIMIT_RATE,
  /** Read the queue's stats. */
  STATS,
  /** Think for a long time (the simulated clock jumps up to two seconds): locks expire, backoffs end. */
  ADVANCE
}
