package io.allot.queue;

/**
 * What a {@link QueueWorker} does with each task. Returning finishes the task ({@code finished 50}); throwing fails
 * this attempt ({@code failed 20}, retried after the worker's backoff, or {@code ignored 70} after the last attempt,
 * with the exception's message kept as the task's last error). Called on one of the worker's threads, at most
 * {@code concurrency} at once.
 *
 * <p>A handler that writes somewhere should make the write conditional on {@link TaskContext#token()} (resource =
 * the task's key), e.g. with {@code allot-fence}: a handler that stalled past its lock while another worker took the
 * task over then cannot overwrite the newer result. Its completion is refused by the store in any case.
 */
@FunctionalInterface
public interface TaskHandler {

  /** Runs one attempt of a task. */
  void handle(TaskContext task) throws Exception;
}
