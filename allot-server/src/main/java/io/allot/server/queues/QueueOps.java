package io.allot.server.queues;

import io.allot.store.Store;
import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.QueueStats;
import java.util.List;
import java.util.Objects;

/**
 * What {@code allot job stats|retry|ignore} and the REST routes {@code /api/v1/queues} do to job queues, written
 * once: which queues there are, the stats of a known queue, retry and ignore by key with their refusals. Every input
 * is checked before anything is changed. Thread-safe (it holds no state but the store).
 *
 * <p>A queue is known while it holds a job or has a rate limit (the one trace a queue leaves in every store:
 * {@link io.allot.store.jobs.JobQueues}); the stats of another are refused ({@link NoSuchQueueException}). A finished
 * job stays finished: an ignore that names one is refused whole before anything changes ({@link
 * FinishedException}); the store's ignore leaves a job that finished meanwhile finished, and that is reported too.
 */
public final class QueueOps {
  private final Store store;

  public QueueOps(Store store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /** A queue that holds no job and has no rate limit. */
  public static final class NoSuchQueueException extends RuntimeException {
    NoSuchQueueException(String queue) {
      super("queue '" + queue + "': no such queue: it holds no job and no rate limit (never used, or every job "
          + "purged)", null, false, false);
    }
  }

  /** An ignore refused (or partly left undone) because jobs it named are finished. */
  public static final class FinishedException extends RuntimeException {
    FinishedException(String message) {
      super(message, null, false, false);
    }
  }

  /** The known queues, sorted. */
  public List<String> names() {
    return store.jobQueues().names();
  }

  /**
   * The queue {@code name}.
   *
   * @throws IllegalArgumentException naming a bad queue name
   */
  public JobQueue open(String name) {
    return store.jobQueue(name);
  }

  /**
   * The stats of the known queue {@code queue} with up to {@code failures} recent failures.
   *
   * @throws NoSuchQueueException if it holds no job and has no rate limit
   */
  public QueueStats stats(JobQueue queue, int failures) {
    QueueStats st = queue.stats(failures);
    if (st.total() == 0 && st.ratePerSecond() == 0) {
      throw new NoSuchQueueException(queue.name());
    }
    return st;
  }

  /**
   * Checks job keys ({@link JobLimits#checkKey}).
   *
   * @throws IllegalArgumentException naming the first bad key, ending "nothing changed"
   */
  public static List<String> checkKeys(List<String> keys) {
    for (String k : keys) {
      try {
        JobLimits.checkKey(k);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(e.getMessage() + "; nothing changed", e);
      }
    }
    return keys;
  }

  /** Sends the jobs back to todo, due now, attempts reset; returns how many were in the queue. */
  public int retry(JobQueue queue, List<String> keys) {
    return queue.retry(checkKeys(keys));
  }

  /**
   * Marks the jobs ignored; returns how many are ignored now.
   *
   * @throws FinishedException if one is finished: before the ignore (nothing changed), or after it when one finished
   *     meanwhile (the others were ignored)
   */
  public int ignore(JobQueue queue, List<String> keys) {
    checkKeys(keys);
    refuseFinished(queue, keys, "nothing changed");
    int n = queue.ignore(keys);
    if (n < keys.size()) {
      refuseFinished(queue, keys, "the others were ignored");
    }
    return n;
  }

  /** The keys of {@code keys} that are not in the queue, each once. */
  public List<String> missing(JobQueue queue, List<String> keys) {
    return keys.stream().distinct().filter(k -> queue.get(k).isEmpty()).toList();
  }

  private static void refuseFinished(JobQueue queue, List<String> keys, String outcome) {
    List<String> finished = keys.stream().distinct()
        .filter(k -> queue.get(k).map(j -> j.status() == JobStatus.FINISHED).orElse(false)).toList();
    if (!finished.isEmpty()) {
      throw new FinishedException("finished, so not ignored: " + String.join(", ", finished) + " (queue "
          + queue.name() + "); " + outcome);
    }
  }
}
