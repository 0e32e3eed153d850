package io.allot.jobs.dispatch;

/**
 * What a {@link JobEndpoint} does with each job a dispatcher pushes: returning reports success (the dispatcher
 * finishes the job, status 50), throwing reports a failure with the exception's message (status 20 and a retry
 * after the backoff, or 70 on the last attempt; a {@link RetryAfter} sets the wait). Called on one of the endpoint's
 * threads, at most {@code capacity} at once; a handler whose job was cancelled is interrupted.
 *
 * <p>A job may run more than once (a result that arrives after the lock was lost is rejected and the job runs
 * again): make the handler idempotent, or fence its writes with {@link DispatchedJob#token()}.
 */
@FunctionalInterface
public interface DispatchedJobHandler {

  /** Runs one attempt of a job. */
  void handle(DispatchedJob job) throws Exception;

  /** Thrown by a handler to fail the attempt and ask for a given wait before the next one. */
  final class RetryAfter extends Exception {
    private static final long serialVersionUID = 1L;
    private final java.time.Duration wait;

    /**
     * @param message the failure, kept as the job's last error
     * @param wait    the wait before the next attempt (at least 1 ms)
     */
    public RetryAfter(String message, java.time.Duration wait) {
      super(message);
      if (wait == null || wait.toMillis() < 1) {
        throw new IllegalArgumentException("retry wait must be at least 1 ms but was " + wait);
      }
      this.wait = wait;
    }

    /** The wait before the next attempt. */
    public java.time.Duration waitBeforeRetry() {
      return wait;
    }
  }
}
