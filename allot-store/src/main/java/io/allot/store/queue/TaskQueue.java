package io.allot.store.queue;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One queue of finite tasks in a store: a store role, scoped to a queue name (see {@code Store.taskQueue(name)}).
 * Every method is one atomic step in the store (a script on Redis, a statement on PostgreSQL), so any number of
 * processes may use the same queue at once. Times are judged by the store's clock only.
 *
 * <h2>The lock and its token</h2>
 * {@link #claim} leases tasks to a worker for a lock TTL and gives each a fencing token that is larger than every
 * token the task had before and never below the store time in microseconds (so it keeps growing even after the store
 * lost data). {@link #finish}, {@link #fail} and {@link #extend} carry the token and are refused ({@link
 * Outcome#REJECTED}, {@code false}) unless the task is still {@code PROCESSING} under that very token: a worker
 * that stalled past its lock, whose task another worker took over, cannot complete it. A lock that expired (by at
 * least the store's clock margin) makes the task runnable again; the attempt it used counts.
 *
 * <h2>Attempts</h2>
 * Each claim starts an attempt. A failure with attempts left makes the task {@code FAILED}, due again after the
 * given backoff; a failure on the last attempt, or an expired lock on the last attempt when it would be claimed
 * again, makes it {@code IGNORED} with the error kept. Attempts never exceed the task's maximum.
 *
 * <h2>Rate limit</h2>
 * A queue may have a rate limit ({@link #limitRate}): a token bucket kept in the store, refilled at the rate and
 * holding at most one second of it, from which every claim of every worker takes one permit per task. So the limit
 * holds for the whole fleet, not per process.
 *
 * <p>Bad input (see {@link TaskLimits}) raises {@link IllegalArgumentException} naming it and changes nothing. An
 * unreachable store raises {@code StoreUnavailableException}; every call is safe to retry (a retried finish of an
 * applied finish is {@link Outcome#REJECTED} but the task is finished, as {@link #get} shows).
 */
public interface TaskQueue {

  /** The queue's name. */
  String name();

  /**
   * Adds the tasks whose keys are not in the queue yet, in one round trip; keys already there (in any status) are
   * left as they are. All tasks are checked before anything is written.
   *
   * @return how many were added
   * @throws IllegalArgumentException if a key appears twice in {@code tasks}, or there are more than {@link
   *     TaskLimits#MAX_BATCH}
   */
  int enqueue(Collection<NewTask> tasks);

  /** {@link #enqueue(Collection)} of one task; true if it was added. */
  default boolean enqueue(NewTask task) {
    return enqueue(List.of(task)) == 1;
  }

  /**
   * Locks up to {@code max} runnable tasks for {@code worker}, highest priority first, then earliest due: tasks
   * {@code TODO} or {@code FAILED} whose time has come, and {@code PROCESSING} ones whose lock expired at least the
   * clock margin ago. Fewer (even none) when the queue's rate limit has fewer permits.
   *
   * @param worker  who locks them (kept for inspection), non-empty
   * @param max     at most this many (1 to {@link TaskLimits#MAX_BATCH})
   * @param lockTtl how long the lock lasts unless extended (at least 1 ms)
   * @return the locked tasks, each with its token and attempt number
   */
  List<ClaimedTask> claim(String worker, int max, Duration lockTtl);

  /**
   * Extends the lock of a task this token holds to {@code lockTtl} from now (store time). A long handler calls it
   * before its lock runs out.
   *
   * @return true if extended; false if the token no longer holds the lock (stop and throw the result away)
   */
  boolean extend(String key, long token, Duration lockTtl);

  /** Marks the task {@code FINISHED} if the token still holds its lock. */
  Outcome finish(String key, long token);

  /**
   * {@link #finish} of several tasks in one round trip: each is accepted or refused on its own, as {@link #finish}
   * would. A worker running many short tasks reports them together.
   *
   * @param tokens key to the token that holds its lock (at most {@link TaskLimits#MAX_BATCH})
   * @return key to {@link Outcome#FINISHED} or {@link Outcome#REJECTED}, for every key given
   */
  Map<String, Outcome> finishAll(Map<String, Long> tokens);

  /**
   * Reports a failed attempt if the token still holds the lock: {@code FAILED}, due after {@code backoff}, or
   * {@code IGNORED} if it was the last attempt. The error is kept (cut to {@link TaskLimits#MAX_ERROR_CHARS}).
   */
  Outcome fail(String key, long token, String error, Duration backoff);

  /** The task with this key, if the queue has it. */
  Optional<Task> get(String key);

  /**
   * Sends tasks back to {@code TODO}, due now, with their attempts reset (by hand, e.g. after a fix). A task being
   * processed loses its lock: its worker's completion will be refused.
   *
   * @return how many of {@code keys} were in the queue
   */
  int retry(Collection<String> keys);

  /**
   * Marks tasks {@code IGNORED} (by hand). A task being processed loses its lock: its worker's completion will be
   * refused.
   *
   * @return how many of {@code keys} were in the queue
   */
  int ignore(Collection<String> keys);

  /**
   * Sets the queue's rate limit, shared by every worker: at most {@code tasksPerSecond} claims per second over the
   * whole fleet, with bursts of at most one second's worth. 0 removes the limit.
   *
   * @throws IllegalArgumentException if negative, not finite, or above 1,000,000
   */
  void limitRate(double tasksPerSecond);

  /** Counts per status, the oldest due {@code TODO}, and up to {@code failures} recent failures with their errors. */
  QueueStats stats(int failures);

  /**
   * Deletes {@code FINISHED} and {@code IGNORED} tasks whose status changed at least {@code age} ago (store time), at
   * most {@code max} of them.
   *
   * @return how many were deleted
   */
  int purge(Duration age, int max);
}
