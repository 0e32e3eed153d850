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
 */
public record ClaimedJob(String key, String data, long token, int attempt, int maxAttempts, long lockedUntilMillis) {
  public ClaimedJob {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
  }

  /** True if this is the job's last allowed attempt: a failure now makes it {@link JobStatus#IGNORED}. */
  public boolean lastAttempt() {
    return attempt >= maxAttempts;
  }
}
