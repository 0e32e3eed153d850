package io.allot.jobs;

/**
 * What a {@link JobWorker} does with each job. Returning finishes the job ({@code finished 50}); throwing fails
 * this attempt ({@code failed 20}, retried after the worker's backoff, or {@code ignored 70} after the last attempt,
 * with the exception's message kept as the job's last error). Called on one of the worker's threads, at most
 * {@code concurrency} at once.
 *
 * <p>A handler that writes somewhere should make the write conditional on {@link JobContext#token()} (resource =
 * the job's key), e.g. with {@code allot-fence}: a handler that stalled past its lock while another worker took the
 * job over then cannot overwrite the newer result. Its completion is refused by the store in any case.
 */
@FunctionalInterface
public interface JobHandler {

  /** Runs one attempt of a job. */
  void handle(JobContext job) throws Exception;
}
