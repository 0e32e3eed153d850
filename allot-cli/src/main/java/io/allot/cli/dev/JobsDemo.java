package io.allot.cli.dev;

import io.allot.jobs.AttemptEnd;
import io.allot.jobs.Backoff;
import io.allot.jobs.JobContext;
import io.allot.jobs.JobWorker;
import io.allot.store.Store;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.LoggerFactory;

/**
 * The job queue of {@code allot dev}: a feeder enqueues an e-mail job every {@link #FEED_EVERY}, and a
 * {@link JobWorker} (rate-limited for the whole fleet) sends them. Every {@value #FAIL_ONCE_EVERY}th job fails its first
 * attempt and is retried after the backoff; one job ({@code ...-bounce}) fails every attempt and ends ignored (the
 * dead-letter state, waiting for a retry by hand). Counts what the attempts did. Thread-safe.
 */
final class JobsDemo implements AutoCloseable {
  static final Duration FEED_EVERY = Duration.ofMillis(300);
  static final int FAIL_ONCE_EVERY = 7;
  static final double RATE_PER_SECOND = 10;

  private final JobQueue queue;
  private final String run; // this run's mark in the job keys, so a second run on one store enqueues new jobs
  private final JobWorker worker;
  private final ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "allot-dev-feeder");
    t.setDaemon(true);
    return t;
  });
  private final AtomicLong fed = new AtomicLong();
  private final AtomicLong finished = new AtomicLong();
  private final AtomicLong finishedAfterRetry = new AtomicLong();
  private final AtomicLong retries = new AtomicLong();
  private final AtomicLong ignored = new AtomicLong();

  JobsDemo(Store store, DevNames names, MeterRegistry registry) {
    this.queue = store.jobQueue(names.queue());
    this.run = Long.toString(System.currentTimeMillis(), 36);
    this.worker = JobWorker.builder(queue, this::send).workerId("dev-mailer").concurrency(4)
        .rateLimit(RATE_PER_SECOND).backoff(Backoff.fixed(Duration.ofSeconds(2))).lockTtl(Duration.ofSeconds(30))
        .listener(this::ended).meterRegistry(registry).events(io.allot.store.events.EventWriter.of(store)).build();
  }

  /** Enqueues the bounce job, starts the worker and the feeder. */
  void start() {
    queue.enqueue(NewJob.of("email-" + run + "-bounce", "fail-always").withMaxAttempts(2));
    worker.start();
    feeder.scheduleWithFixedDelay(this::feed, 0, FEED_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    feeder.scheduleWithFixedDelay(this::purge, 1, 1, TimeUnit.MINUTES);
  }

  private void feed() {
    long n = fed.incrementAndGet();
    String data = n % FAIL_ONCE_EVERY == 3 ? "fail-once" : "{\"to\":\"user-" + n + "@example.org\"}";
    try {
      queue.enqueue(NewJob.of(String.format("email-%s-%06d", run, n), data).withMaxAttempts(3));
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(JobsDemo.class).warn("dev: enqueue failed: {}", e.toString());
    }
  }

  private void purge() {
    try {
      queue.purge(Duration.ofMinutes(10), 10_000); // a long run does not grow the queue without end
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(JobsDemo.class).warn("dev: purge failed: {}", e.toString());
    }
  }

  private void send(JobContext job) throws Exception {
    Thread.sleep(ThreadLocalRandom.current().nextInt(20, 80)); // the mail server's answer
    if (job.data().equals("fail-always")) {
      throw new IllegalStateException("smtp: 550 mailbox unavailable");
    }
    if (job.data().equals("fail-once") && job.attempt() == 1) {
      throw new IllegalStateException("smtp: 451 try again later");
    }
  }

  private void ended(AttemptEnd end) {
    switch (end.outcome()) {
      case FINISHED -> {
        finished.incrementAndGet();
        if (end.attempt() > 1) {
          finishedAfterRetry.incrementAndGet();
        }
      }
      case RETRY_SCHEDULED -> retries.incrementAndGet();
      case IGNORED -> ignored.incrementAndGet();
      default -> { }
    }
  }

  /** One line: what the attempts did so far. */
  String status() {
    return String.format("jobs finished %d (after a retry %d), retries %d, ignored %d", finished.get(),
        finishedAfterRetry.get(), retries.get(), ignored.get());
  }

  @Override
  public void close() {
    feeder.shutdownNow();
    worker.close();
  }
}
