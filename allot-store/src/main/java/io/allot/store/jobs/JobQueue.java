package io.allot.store.jobs;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One queue of jobs (finite queued work) in a store: a store role, scoped to a queue name (see {@code Store.jobQueue(name)}).
 * Every method is one atomic step in the store (a script on Redis, a statement on PostgreSQL), so any number of
 * processes may use the same queue at once. Times are judged by the store's clock only.
 *
 * <h2>The lock and its token</h2>
 * {@link #claim} leases jobs to a worker for a lock TTL and gives each a fencing token that is larger than every
 * token the job had before and never below the store time in microseconds (so it keeps growing even after the store
 * lost data). {@link #finish}, {@link #fail} and {@link #extend} carry the token and are refused ({@link
 * JobOutcome#REJECTED}, {@code false}) unless the job is still {@code PROCESSING} under that very token: a worker
 * that stalled past its lock, whose job another worker took over, cannot complete it. A lock that expired (by at
 * least the store's clock margin) makes the job runnable again; the attempt it used counts.
 *
 * <h2>Attempts</h2>
 * Each claim starts an attempt. A failure with attempts left makes the job {@code FAILED}, due again after the
 * given backoff; a failure on the last attempt, or an expired lock on the last attempt when it would be claimed
 * again, makes it {@code IGNORED} with the error kept. Attempts never exceed the job's maximum. A worker that shuts
 * down gives back what it claimed and did not run ({@link #giveBack}): those attempts do not count.
 *
 * <h2>Rate limit</h2>
 * A queue may have a rate limit ({@link #limitRate}): a token bucket kept in the store, refilled at the rate and
 * holding at most one second of it, from which every claim of every worker takes one permit per job. So the limit
 * holds for the whole fleet, not per process.
 *
 * <p>Bad input (see {@link JobLimits}) raises {@link IllegalArgumentException} naming it and changes nothing. An
 * unreachable store raises {@code StoreUnavailableException}; every call is safe to retry (a retried finish of an
 * applied finish is {@link JobOutcome#REJECTED} but the job is finished, as {@link #get} shows).
 */
public interface JobQueue {

  /** The queue's name. */
  String name();

  /**
   * Adds the jobs whose keys are not in the queue yet, in one round trip; keys already there (in any status) are
   * left as they are. All jobs are checked before anything is written.
   *
   * @return how many were added
   * @throws IllegalArgumentException if a key appears twice in {@code jobs}, or there are more than {@link
   *     JobLimits#MAX_BATCH}
   */
  int enqueue(Collection<NewJob> jobs);

  /** {@link #enqueue(Collection)} of one job; true if it was added. */
  default boolean enqueue(NewJob job) {
    return enqueue(List.of(job)) == 1;
  }

  /**
   * Locks up to {@code max} runnable jobs for {@code worker}, highest priority first, then earliest due: jobs
   * {@code TODO} or {@code FAILED} whose time has come, and {@code PROCESSING} ones whose lock expired at least the
   * clock margin ago. Fewer (even none) when the queue's rate limit has fewer permits: then the answer says so
   * ({@link ClaimedJobs#rateLimited()}) if a runnable job was left behind, so a caller can tell a rate-limit wait
   * from an empty queue.
   *
   * @param worker  who locks them (kept for inspection), non-empty
   * @param max     at most this many (1 to {@link JobLimits#MAX_BATCH})
   * @param lockTtl how long the lock lasts unless extended (at least 1 ms)
   * @return the locked jobs, each with its token and attempt number, and whether the rate limit cut the claim short
   */
  ClaimedJobs claim(String worker, int max, Duration lockTtl);

  /**
   * Extends the lock of a job this token holds to {@code lockTtl} from now (store time). A long handler calls it
   * before its lock runs out.
   *
   * @return true if extended; false if the token no longer holds the lock (stop and throw the result away)
   */
  boolean extend(String key, long token, Duration lockTtl);

  /** Marks the job {@code FINISHED} if the token still holds its lock. */
  JobOutcome finish(String key, long token);

  /**
   * {@link #finish} of several jobs in one round trip: each is accepted or refused on its own, as {@link #finish}
   * would. A worker running many short jobs reports them together.
   *
   * @param tokens key to the token that holds its lock (at most {@link JobLimits#MAX_BATCH})
   * @return key to {@link JobOutcome#FINISHED} or {@link JobOutcome#REJECTED}, for every key given
   */
  Map<String, JobOutcome> finishAll(Map<String, Long> tokens);

  /**
   * Reports a failed attempt if the token still holds the lock: {@code FAILED}, due after {@code backoff}, or
   * {@code IGNORED} if it was the last attempt. The error is kept (cut to {@link JobLimits#MAX_ERROR_CHARS}).
   */
  JobOutcome fail(String key, long token, String error, Duration backoff);

  /** The job with this key, if the queue has it. */
  Optional<Job> get(String key);

  /**
   * Sends jobs back to {@code TODO}, due now, with their attempts reset (by hand, e.g. after a fix). A job being
   * processed loses its lock: its worker's completion will be refused.
   *
   * @return how many of {@code keys} were in the queue
   */
  int retry(Collection<String> keys);

  /**
   * Marks jobs {@code IGNORED} (by hand). A job being processed loses its lock: its worker's completion will be
   * refused. A {@code FINISHED} job is left as it is (it ran: ignoring it would hide that), in the same atomic step,
   * so a job that finishes while it is being ignored stays finished.
   *
   * @return how many of {@code keys} are {@code IGNORED} now: in the queue and not finished
   */
  int ignore(Collection<String> keys);

  /**
   * Gives back jobs a worker claimed and will not run to their end (it is shutting down): each job that {@code
   * worker} still holds under the given token becomes {@code TODO} again, due now, its lock dropped (a completion
   * with that token will be refused) and the attempt the claim started not counted (attempts down by one). The job
   * keeps its token, last error and {@code lockedBy}, so the next claim still gets a larger token. A key whose token
   * no longer holds the lock (it expired and was taken over, was retried or ignored by hand), that another worker
   * holds, or that is not in the queue, is left alone. All in one atomic step.
   *
   * <p>{@code TODO} rather than {@code FAILED}: nothing failed, and a given-back job must not show among the
   * recent failures ({@link #stats}) nor wait for a backoff.
   *
   * @param worker the worker that claimed them (the name it gave {@link #claim}), non-empty
   * @param tokens key to the token of the claim being given back (at most {@link JobLimits#MAX_BATCH})
   * @return how many jobs were given back
   * @throws IllegalArgumentException naming it, with nothing changed: an empty worker, more than {@link
   *     JobLimits#MAX_BATCH} keys, a bad key or a null token
   */
  int giveBack(String worker, Map<String, Long> tokens);

  /**
   * Sets the queue's rate limit, shared by every worker: at most {@code jobsPerSecond} claims per second over the
   * whole fleet, with bursts of at most one second's worth. 0 removes the limit.
   *
   * @throws IllegalArgumentException if negative, not finite, or above 1,000,000
   */
  void limitRate(double jobsPerSecond);

  /** Counts per status, the oldest due {@code TODO}, and up to {@code failures} recent failures with their errors. */
  QueueStats stats(int failures);

  /**
   * Deletes {@code FINISHED} and {@code IGNORED} jobs whose status changed at least {@code age} ago (store time), at
   * most {@code max} of them.
   *
   * @return how many were deleted
   */
  int purge(Duration age, int max);
}
