package io.allot.store.queue;

import java.util.Objects;

/**
 * A task a worker holds the lock of, as {@link TaskQueue#claim} returned it.
 *
 * @param key                  the task's key
 * @param data                 its payload
 * @param token                the lock's fencing token: larger than every token the task had before, never below
 *                             the store time in microseconds. {@link TaskQueue#finish}, {@link TaskQueue#fail} and
 *                             {@link TaskQueue#extend} need it; a handler can fence its own writes with it (resource
 *                             = the task key, e.g. with {@code allot-fence})
 * @param attempt              which attempt this is (1 for the first)
 * @param maxAttempts          the task's attempt limit
 * @param lockedUntilMillis    when the lock expires, in store time, unless extended
 */
public record ClaimedTask(String key, String data, long token, int attempt, int maxAttempts, long lockedUntilMillis) {
  public ClaimedTask {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
  }

  /** True if this is the task's last allowed attempt: a failure now makes it {@link TaskStatus#IGNORED}. */
  public boolean lastAttempt() {
    return attempt >= maxAttempts;
  }
}
