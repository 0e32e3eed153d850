package io.allot.jobs;

import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.QueueStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
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
 * A queue's counts as gauges: {@code allot.jobs.status{queue, status}} (jobs per status) and
 * {@code allot.jobs.oldest.todo.age{queue}} (seconds), read from the store every {@code interval} on a thread of its
 * own (one {@link JobQueue#stats} call each time: a count over the queue's rows, so keep the interval in seconds).
 * A worker's own meters ({@code allot.jobs.attempts}, {@code .claim}, {@code .complete}, {@code .run},
 * {@code .in.flight}, {@code .lock.extensions}) come from {@link JobWorker.Builder#meterRegistry}.
 *
 * <p>The values are atomics written by the polling thread only and read by the registry.
 */
public final class JobMetrics implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobMetrics.class);

  private final JobQueue queue;
  private final Map<JobStatus, AtomicLong> sizes = new EnumMap<>(JobStatus.class);
  private final AtomicLong oldestTodoAgeMillis = new AtomicLong();
  private final ScheduledExecutorService poller;
  private final java.util.function.LongSupplier storeNowMillis;

  private JobMetrics(JobQueue queue, MeterRegistry meters, Duration interval,
      java.util.function.LongSupplier storeNowMillis) {
    this.queue = queue;
    this.storeNowMillis = storeNowMillis;
    for (JobStatus s : JobStatus.values()) {
      AtomicLong v = new AtomicLong();
      sizes.put(s, v);
      Gauge.builder("allot.jobs.status", v, AtomicLong::get).tag("queue", queue.name())
          .tag("status", s.name().toLowerCase()).description("jobs in the queue with this status").register(meters);
    }
    Gauge.builder("allot.jobs.oldest.todo.age", oldestTodoAgeMillis, a -> a.get() / 1000.0)
        .tag("queue", queue.name()).baseUnit("seconds").description("how long the oldest due todo job has waited").register(meters);
    this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "allot-jobs-" + queue.name() + "-metrics");
      t.setDaemon(true);
      return t;
    });
    poller.scheduleWithFixedDelay(this::poll, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Starts polling {@code queue}'s counts into {@code meters}.
   *
   * @param storeNowMillis the store's clock ({@code store.clock()::timeMillis}), for the age of the oldest todo
   * @param interval       how often to read the counts (at least 100 ms)
   */
  public static JobMetrics bind(JobQueue queue, MeterRegistry meters, Duration interval,
      java.util.function.LongSupplier storeNowMillis) {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(meters, "meters");
    Objects.requireNonNull(storeNowMillis, "storeNowMillis");
    if (interval.toMillis() < 100) {
      throw new IllegalArgumentException("interval must be at least 100 ms but was " + interval);
    }
    return new JobMetrics(queue, meters, interval, storeNowMillis);
  }

  /** Reads the counts once, now (also what the polling thread does). */
  void poll() {
    try {
      QueueStats s = queue.stats(0);
      for (JobStatus st : JobStatus.values()) {
        sizes.get(st).set(s.count(st));
      }
      long now = storeNowMillis.getAsLong();
      oldestTodoAgeMillis.set(s.oldestTodoMillis().isPresent() ? Math.max(0, now - s.oldestTodoMillis().getAsLong())
          : 0);
    } catch (RuntimeException e) {
      log.warn("queue {}: could not read its counts: {}", queue.name(), e.toString());
    }
  }

  /** Stops polling (the gauges keep their last values). */
  @Override
  public void close() {
    poller.shutdownNow();
  }
}
