package io.allot.jobs;

import java.time.Duration;

/**
 * What to do with each attempt of a job, in either mode: in process by a {@link JobWorker} (which claims from the
 * store), or pushed by a {@link JobDispatcher} to a {@link JobEndpoint}. The same handler runs unchanged in both.
 * Returning finishes the job ({@code finished 50}); throwing fails this attempt ({@code failed 20}, retried after the
 * backoff, or {@link RetryAfter}'s wait; {@code ignored 70} after the last attempt), with the failure kept as the
 * job's last error ({@code ExceptionClass: message}, or a {@code RetryAfter}'s message). Called on one of the
 * client's threads, at most {@code concurrency} (worker) or {@code capacity} (endpoint) at once.
 *
 * <p>A job may run more than once (an attempt that lost its lock is refused and the job runs again), so make the
 * handler idempotent, or make its writes conditional on {@link JobContext#token()} (resource = the job's key), e.g.
 * with {@code allot-fence}: a handler that stalled past its lock while the job ran again elsewhere then cannot
 * overwrite the newer result. A long handler checks {@link JobContext#stopRequested()} between steps.
 */
@FunctionalInterface
public interface JobHandler {

  /** Runs one attempt of a job. */
  void handle(JobContext job) throws Exception;

  /** Thrown by a handler to fail the attempt and ask for a given wait before the next one (instead of the backoff). */
  final class RetryAfter extends Exception {
    private static final long serialVersionUID = 1L;
    /** The longest wait a handler may ask for (an endpoint's {@code retry_after_ms} has the same bound). */
    public static final Duration MAX_WAIT = Duration.ofDays(30);
    private final Duration wait;

    /**
     * @param message the failure, kept as the job's last error
     * @param wait    the wait before the next attempt (1 ms to {@link #MAX_WAIT})
     * @throws IllegalArgumentException naming {@code wait} if it is out of bounds
     */
    public RetryAfter(String message, Duration wait) {
      super(message);
      if (wait == null || wait.compareTo(Duration.ofMillis(1)) < 0 || wait.compareTo(MAX_WAIT) > 0) {
        throw new IllegalArgumentException("wait: must be between 1 ms and " + MAX_WAIT.toDays() + " days but was "
            + wait);
      }
      this.wait = wait;
    }

    /** The wait before the next attempt. */
    public Duration waitBeforeRetry() {
      return wait;
    }
  }
}
