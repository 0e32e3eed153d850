package io.allot.store.queue;

import java.time.Duration;
import java.util.Objects;

/**
 * A task to enqueue. Only {@code key} is required; {@link #of(String)} gives the defaults and the {@code with…}
 * methods return changed copies.
 *
 * @param key         unique in its queue: enqueueing a key that is already there (in any status) changes nothing
 * @param data        the payload handed to the handler (text, e.g. JSON; at most {@link TaskLimits#MAX_DATA_BYTES}
 *                    UTF-8 bytes); empty by default
 * @param delay       how long after the enqueue (store time) it becomes runnable; zero by default
 * @param priority    higher runs first among runnable tasks; 0 by default
 * @param maxAttempts attempts before it is {@link TaskStatus#IGNORED} (1 to {@link TaskLimits#MAX_ATTEMPTS});
 *                    {@link #DEFAULT_MAX_ATTEMPTS} by default
 */
public record NewTask(String key, String data, Duration delay, int priority, int maxAttempts) {
  /** The default number of attempts: 5. */
  public static final int DEFAULT_MAX_ATTEMPTS = 5;

  /** Checks every field; bad input raises {@link IllegalArgumentException} naming the field and the key. */
  public NewTask {
    TaskLimits.checkKey(key);
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(delay, "delay");
    TaskLimits.checkData(key, data);
    if (delay.isNegative()) {
      throw new IllegalArgumentException("task '" + key + "': delay must be >= 0 but was " + delay);
    }
    if (maxAttempts < 1 || maxAttempts > TaskLimits.MAX_ATTEMPTS) {
      throw new IllegalArgumentException("task '" + key + "': maxAttempts must be in [1, " + TaskLimits.MAX_ATTEMPTS
          + "] but was " + maxAttempts);
    }
  }

  /** A task with this key, no data, runnable now, priority 0, {@link #DEFAULT_MAX_ATTEMPTS} attempts. */
  public static NewTask of(String key) {
    return new NewTask(key, "", Duration.ZERO, 0, DEFAULT_MAX_ATTEMPTS);
  }

  /** A task with this key and data and the other defaults. */
  public static NewTask of(String key, String data) {
    return new NewTask(key, data, Duration.ZERO, 0, DEFAULT_MAX_ATTEMPTS);
  }

  /** This task with another payload. */
  public NewTask withData(String newData) {
    return new NewTask(key, newData, delay, priority, maxAttempts);
  }

  /** This task, runnable {@code newDelay} after the enqueue. */
  public NewTask withDelay(Duration newDelay) {
    return new NewTask(key, data, newDelay, priority, maxAttempts);
  }

  /** This task with another priority (higher first). */
  public NewTask withPriority(int newPriority) {
    return new NewTask(key, data, delay, newPriority, maxAttempts);
  }

  /** This task with another attempt limit. */
  public NewTask withMaxAttempts(int newMaxAttempts) {
    return new NewTask(key, data, delay, priority, newMaxAttempts);
  }
}
