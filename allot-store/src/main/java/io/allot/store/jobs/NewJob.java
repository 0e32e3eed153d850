package io.allot.store.jobs;

import java.time.Duration;
import java.util.Objects;

/**
 * A job to enqueue. Only {@code key} is required; {@link #of(String)} gives the defaults and the {@code with…}
 * methods return changed copies.
 *
 * @param key         unique in its queue: enqueueing a key that is already there (in any status) changes nothing
 * @param data        the payload handed to the handler (text, e.g. JSON; at most {@link JobLimits#MAX_DATA_BYTES}
 *                    UTF-8 bytes); empty by default
 * @param delay       how long after the enqueue (store time) it becomes runnable; zero by default
 * @param priority    higher runs first among runnable jobs; 0 by default
 * @param maxAttempts attempts before it is {@link JobStatus#IGNORED} (1 to {@link JobLimits#MAX_ATTEMPTS});
 *                    {@link #DEFAULT_MAX_ATTEMPTS} by default
 */
public record NewJob(String key, String data, Duration delay, int priority, int maxAttempts) {
  /** The default number of attempts: 5. */
  public static final int DEFAULT_MAX_ATTEMPTS = 5;

  /** Checks every field; bad input raises {@link IllegalArgumentException} naming the field and the key. */
  public NewJob {
    JobLimits.checkKey(key);
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(delay, "delay");
    JobLimits.checkData(key, data);
    if (delay.isNegative()) {
      throw new IllegalArgumentException("job '" + key + "': delay must be >= 0 but was " + delay);
    }
    if (maxAttempts < 1 || maxAttempts > JobLimits.MAX_ATTEMPTS) {
      throw new IllegalArgumentException("job '" + key + "': maxAttempts must be in [1, " + JobLimits.MAX_ATTEMPTS
          + "] but was " + maxAttempts);
    }
  }

  /** A job with this key, no data, runnable now, priority 0, {@link #DEFAULT_MAX_ATTEMPTS} attempts. */
  public static NewJob of(String key) {
    return new NewJob(key, "", Duration.ZERO, 0, DEFAULT_MAX_ATTEMPTS);
  }

  /** A job with this key and data and the other defaults. */
  public static NewJob of(String key, String data) {
    return new NewJob(key, data, Duration.ZERO, 0, DEFAULT_MAX_ATTEMPTS);
  }

  /** This job with another payload. */
  public NewJob withData(String newData) {
    return new NewJob(key, newData, delay, priority, maxAttempts);
  }

  /** This job, runnable {@code newDelay} after the enqueue. */
  public NewJob withDelay(Duration newDelay) {
    return new NewJob(key, data, newDelay, priority, maxAttempts);
  }

  /** This job with another priority (higher first). */
  public NewJob withPriority(int newPriority) {
    return new NewJob(key, data, delay, newPriority, maxAttempts);
  }

  /** This job with another attempt limit. */
  public NewJob withMaxAttempts(int newMaxAttempts) {
    return new NewJob(key, data, delay, priority, newMaxAttempts);
  }
}
