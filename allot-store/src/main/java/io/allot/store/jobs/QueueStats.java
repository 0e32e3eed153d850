package io.allot.store.jobs;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A queue at a glance.
 *
 * @param counts                 jobs per status (every status present, 0 when none)
 * @param oldestTodoMillis       the due time (store ms) of the oldest runnable-or-waiting {@code TODO} job, if any
 * @param failures               the most recently updated {@code FAILED} and {@code IGNORED} jobs with their last
 *                               error, newest first, at most the number asked for
 * @param ratePerSecond          the queue's rate limit (jobs claimed per second over all workers; 0 = none)
 */
public record QueueStats(Map<JobStatus, Long> counts, OptionalLong oldestTodoMillis, List<Job> failures,
    double ratePerSecond) {
  public QueueStats {
    EnumMap<JobStatus, Long> all = new EnumMap<>(JobStatus.class);
    for (JobStatus s : JobStatus.values()) {
      all.put(s, counts.getOrDefault(s, 0L));
    }
    counts = java.util.Collections.unmodifiableMap(all);
    failures = List.copyOf(failures);
  }

  /** The number of jobs with {@code status}. */
  public long count(JobStatus status) {
    return counts.get(status);
  }

  /** The number of jobs in the queue. */
  public long total() {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }
}
