package io.allot.store.jobs;

import java.util.Objects;

/**
 * A job as the store holds it (for inspection: {@link JobQueue#get}, {@link QueueStats#failures()}). Times are
 * store time in milliseconds since the epoch.
 *
 * @param key              its key
 * @param status           its status
 * @param data             its payload
 * @param priority         higher runs first
 * @param attempts         attempts started so far
 * @param maxAttempts      its attempt limit
 * @param dueAtMillis      when it is runnable: the (next) attempt's time for {@code TODO}/{@code FAILED}, the lock's
 *                         expiry for {@code PROCESSING}; meaningless once final
 * @param updatedAtMillis  when its status last changed
 * @param token            the token of its latest lock (0 if never claimed)
 * @param lockedBy         the worker that holds or last held its lock ({@code ""} if never claimed)
 * @param lastError        the last failure's message ({@code ""} if none)
 */
public record Job(String key, JobStatus status, String data, int priority, int attempts, int maxAttempts,
    long dueAtMillis, long updatedAtMillis, long token, String lockedBy, String lastError) {
  public Job {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(lockedBy, "lockedBy");
    Objects.requireNonNull(lastError, "lastError");
  }
}
