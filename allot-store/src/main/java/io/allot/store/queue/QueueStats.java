package io.allot.store.queue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A queue at a glance.
 *
 * @param counts                 tasks per status (every status present, 0 when none)
 * @param oldestTodoMillis       the due time (store ms) of the oldest runnable-or-waiting {@code TODO} task, if any
 * @param failures               the most recently updated {@code FAILED} and {@code IGNORED} tasks with their last
 *                               error, newest first, at most the number asked for
 * @param ratePerSecond          the queue's rate limit (tasks claimed per second over all workers; 0 = none)
 */
public record QueueStats(Map<TaskStatus, Long> counts, OptionalLong oldestTodoMillis, List<Task> failures,
    double ratePerSecond) {
  public QueueStats {
    EnumMap<TaskStatus, Long> all = new EnumMap<>(TaskStatus.class);
    for (TaskStatus s : TaskStatus.values()) {
      all.put(s, counts.getOrDefault(s, 0L));
    }
    counts = java.util.Collections.unmodifiableMap(all);
    failures = List.copyOf(failures);
  }

  /** The number of tasks with {@code status}. */
  public long count(TaskStatus status) {
    return counts.get(status);
  }

  /** The number of tasks in the queue. */
  public long total() {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }
}
