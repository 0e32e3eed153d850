package io.allot.queue;

import io.allot.store.queue.Outcome;

/**
 * Told of every attempt's end, after the store answered: {@link Outcome#FINISHED}, {@link Outcome#RETRY_SCHEDULED}
 * or {@link Outcome#IGNORED} when the store accepted the result, {@link Outcome#REJECTED} when it refused it (the
 * lock had been lost: the result must not count). Called on one of the worker's threads (the handler's, or the one
 * that reports finishes in batches); keep it short.
 */
@FunctionalInterface
public interface CompletionListener {

  /**
   * @param task    the attempt
   * @param outcome what the store did
   * @param error   what the handler threw, or null if it returned
   */
  void completed(TaskContext task, Outcome outcome, Throwable error);
}
