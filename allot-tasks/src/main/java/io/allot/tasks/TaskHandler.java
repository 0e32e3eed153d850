package io.allot.tasks;

/**
 * The work of one long-running task, run by a {@link TaskRunner} for as long as this member owns the task. It runs
 * until told to stop: return (or throw) when {@link TaskContext#stopRequested()} becomes true or the thread is
 * interrupted. An exception is a failure: the runner records it in the task's spec (its last error is visible in the
 * API) and starts the handler again after a backoff; too many failures in a window make the task {@code Failed} until
 * it runs cleanly for a window. A return without a stop request is restarted too (a long-running task has no end).
 */
@FunctionalInterface
public interface TaskHandler {
  /** Runs the task until told to stop. */
  void run(TaskContext context) throws Exception;
}
