package io.allot.store.jobs;

import java.util.Objects;

/**
 * A job a worker holds the lock of, as {@link JobQueue#claim} returned it.
 *
 * @param key                  the job's key
 * @param data                 its payload
 * @param token                the lock's fencing token: larger than every token the job had before, never below
 *                             the store time in microseconds. {@link JobQueue#finish}, {@link JobQueue#fail} and
 *                             {@link JobQueue#extend} need it; a handler can fence its own writes with it (resource
 *                             = the job key, e.g. with {@code allot-fence})
 * @param attempt              which attempt this is (1 for the first)
 * @param maxAttempts          the job's attempt limit
 * @param lockedUntilMillis    when the lock expires, in store time, unless extended
 * @param dueAtMillis          when the job had become runnable before this claim, in store time: its enqueue time
 *                             (plus its delay), the end of its backoff after a failure, or its expired lock's end;
 *                             0 if unknown (a job received over a dispatch stream). The job waited
 *                             {@code lockedUntilMillis - lockTtl - dueAtMillis} in the queue, all in store time
 */
public record ClaimedJob(String key, String data, long token, int attempt, int maxAttempts, long lockedUntilMillis,
    long dueAtMillis) {
  public ClaimedJob {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
  }

  /** A claimed job whose due time is unknown ({@code dueAtMillis} 0). */
  public ClaimedJob(String key, String data, long token, int attempt, int maxAttempts, long lockedUntilMillis) {
    this(key, data, token, attempt, maxAttempts, lockedUntilMillis, 0);
  }

  /**
   * How long the job waited in the queue, runnable, before this claim took it (store time, so no clock skew): the
   * claim's time ({@code lockedUntilMillis - lockTtl}, with the TTL the claim asked for) less {@code dueAtMillis};
   * -1 if unknown.
   */
  public long waitedMillis(java.time.Duration lockTtl) {
    if (dueAtMillis <= 0 || lockedUntilMillis <= 0) {
      return -1;
    }
    return Math.max(0, lockedUntilMillis - lockTtl.toMillis() - dueAtMillis);
  }

  /** True if this is the job's last allowed attempt: a failure now makes it {@link JobStatus#IGNORED}. */
  public boolean lastAttempt() {
    return attempt >= maxAttempts;
  }
}
