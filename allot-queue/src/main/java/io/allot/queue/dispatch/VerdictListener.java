package io.allot.queue.dispatch;

import io.allot.store.queue.Outcome;

/**
 * Told, on a {@link TaskEndpoint}, what the store did with each result the endpoint reported: {@link
 * Outcome#FINISHED}, {@link Outcome#RETRY_SCHEDULED} or {@link Outcome#IGNORED} when it was accepted, {@link
 * Outcome#REJECTED} when the attempt had lost its lock (the result does not count; the task runs again), or
 * {@code null} when the dispatcher could not reach the store in time (unknown). Not called when the stream broke
 * before the verdict arrived. Called on a gRPC thread; keep it short.
 */
@FunctionalInterface
public interface VerdictListener {

  /**
   * @param task    the attempt
   * @param outcome what the store did, or null if unknown
   * @param error   what the handler threw, or null if it returned
   */
  void verdict(DispatchedTask task, Outcome outcome, Throwable error);
}
