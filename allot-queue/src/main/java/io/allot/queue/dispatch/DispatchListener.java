package io.allot.queue.dispatch;

import io.allot.store.queue.ClaimedTask;
import io.allot.store.queue.Outcome;

/**
 * Told, on a {@link TaskDispatcher}, of every result an endpoint reported, after the store answered: {@link
 * Outcome#FINISHED}, {@link Outcome#RETRY_SCHEDULED} or {@link Outcome#IGNORED} when the store accepted it, {@link
 * Outcome#REJECTED} when it refused it (the attempt had lost its lock), or {@code null} when the store could not be
 * reached before the lock ran out (unknown). Called on a completion thread; keep it short.
 */
@FunctionalInterface
public interface DispatchListener {

  /**
   * @param task     the attempt, as claimed
   * @param endpoint the endpoint that ran it (its id from Ready, else its address)
   * @param outcome  what the store did, or null if unknown
   * @param error    the failure the endpoint reported, or null on success
   */
  void completed(ClaimedTask task, String endpoint, Outcome outcome, String error);
}
