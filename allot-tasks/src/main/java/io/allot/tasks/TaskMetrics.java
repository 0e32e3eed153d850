package io.allot.tasks;

import io.allot.tasks.service.TaskService;
import io.allot.tasks.service.TaskView;
import io.allot.tasks.status.TaskStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meters of long-running tasks ({@code allot.tasks.*}). {@link #bind} polls a pool's tasks per status into
 * {@code allot.tasks.status{pool, status}} (one {@link TaskService#list} every {@code interval} on a thread of its
 * own); a {@link TaskRunner} whose divider builder has a meter registry adds its member's
 * {@code allot.tasks.running}, {@code allot.tasks.failures} and {@code allot.tasks.restarts} (tags {@code pool},
 * {@code member}). Every name and its Prometheus form: docs/operations.md, "Metrics".
 *
 * <p>The values are atomics written by the polling thread only and read by the registry.
 */
public final class TaskMetrics implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TaskMetrics.class);

  private final TaskService service;
  private final String pool;
  private final Map<TaskStatus, AtomicLong> counts = new EnumMap<>(TaskStatus.class);
  private final ScheduledExecutorService poller;

  private TaskMetrics(TaskService service, String pool, MeterRegistry meters, Duration interval) {
    this.service = service;
    this.pool = pool;
    for (TaskStatus s : TaskStatus.values()) {
      AtomicLong v = new AtomicLong();
      counts.put(s, v);
      Gauge.builder("allot.tasks.status", v, AtomicLong::get).tag("pool", pool).tag("status", s.jsonName())
          .description("tasks of the pool with this status").register(meters);
    }
    this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "allot-tasks-" + pool + "-metrics");
      t.setDaemon(true);
      return t;
    });
    poller.scheduleWithFixedDelay(this::poll, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Starts polling the statuses of {@code pool}'s tasks into {@code meters}.
   *
   * @param interval how often to read them (at least 100 ms; each read lists the pool's tasks)
   * @throws IllegalArgumentException naming a bad interval
   */
  public static TaskMetrics bind(TaskService service, String pool, MeterRegistry meters, Duration interval) {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(meters, "meters");
    if (interval.toMillis() < 100) {
      throw new IllegalArgumentException("interval must be at least 100 ms but was " + interval);
    }
    return new TaskMetrics(service, pool, meters, interval);
  }

  /** Reads the statuses once, now (also what the polling thread does). */
  void poll() {
    try {
      Map<TaskStatus, Long> now = new EnumMap<>(TaskStatus.class);
      for (TaskView v : service.list(pool, null)) {
        now.merge(v.status(), 1L, Long::sum);
      }
      counts.forEach((s, v) -> v.set(now.getOrDefault(s, 0L)));
    } catch (RuntimeException e) {
      log.warn("pool {}: could not read its tasks' statuses: {}", pool, e.toString());
    }
  }

  /** A runner's member meters, bound when it starts (the member id is known then). */
  static void bindRunner(MeterRegistry meters, String pool, String member, Map<String, ?> running,
      AtomicLong failures, AtomicLong restarts) {
    Tags tags = Tags.of("pool", pool, "member", member);
    Gauge.builder("allot.tasks.running", running, Map::size).tags(tags)
        .description("task handlers running on this member").register(meters);
    FunctionCounter.builder("allot.tasks.failures", failures, AtomicLong::get).tags(tags)
        .description("task handler runs that failed (threw); the task is started again after a backoff")
        .register(meters);
    FunctionCounter.builder("allot.tasks.restarts", restarts, AtomicLong::get).tags(tags)
        .description("task handlers restarted for an update of their arguments").register(meters);
  }

  /** Stops polling (the gauges keep their last values). */
  @Override
  public void close() {
    poller.shutdownNow();
  }
}
