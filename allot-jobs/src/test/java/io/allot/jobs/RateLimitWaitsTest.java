package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rate-limit waits have a metric of their own (issue 20): a worker and a dispatcher count the claims the queue's rate
 * limit cut short ({@code allot.jobs.rate.limited}, {@code allot.jobs.dispatch.rate.limited}) apart from claims that
 * found nothing more runnable (both are short claims). On a memory store whose clock stands still, so the bucket
 * stays empty.
 */
class RateLimitWaitsTest {
  private final Closer toClose = new Closer();
  private final AtomicLong nanos = new AtomicLong();
  private final MemoryStore store = toClose.add(new MemoryStore(nanos::get)); // store time moves only when told
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @AfterEach
  void closeAll() throws Exception {
    toClose.close();
  }

  private double count(String name, String queue) {
    return meters.get(name).tag("queue", queue).counter().count();
  }

  private static void enqueue(JobQueue q, int n) {
    q.enqueue(IntStream.range(0, n).mapToObj(i -> NewJob.of("j" + i)).toList());
  }

  @Test
  void aWorkerCountsRateLimitWaitsApartFromAnEmptyQueue() {
    JobQueue limited = store.jobQueue("limited");
    enqueue(limited, 20);
    toClose.add(JobWorker.builder(limited, j -> { }).rateLimit(5).pollInterval(Duration.ofMillis(10))
        .meterRegistry(meters).build().start());
    JobQueue empty = store.jobQueue("empty");
    toClose.add(JobWorker.builder(empty, j -> { }).pollInterval(Duration.ofMillis(10)).meterRegistry(meters).build()
        .start());
    await().atMost(Duration.ofSeconds(30)).until(() -> count("allot.jobs.rate.limited", "limited") >= 3
        && count("allot.jobs.claim.short", "empty") >= 3);
    assertThat(count("allot.jobs.claim.short", "limited")).isGreaterThanOrEqualTo(3);
    assertThat(count("allot.jobs.rate.limited", "empty")).as("an empty queue is no rate-limit wait").isZero();
    assertThat(limited.stats(0).count(JobStatus.TODO)).as("the clock stood still: no permit").isEqualTo(20);
  }

  @Test
  void aDispatcherCountsRateLimitWaits() {
    JobQueue limited = store.jobQueue("dispatched");
    enqueue(limited, 20);
    EndpointServer e = toClose.add(new EndpointServer(JobEndpoint.builder(t -> { }).capacity(50).build()));
    toClose.add(JobDispatcher.builder(limited, EndpointSource.fixed(e.address())).rateLimit(5)
        .pollInterval(Duration.ofMillis(10)).meterRegistry(meters).build().start());
    await().atMost(Duration.ofSeconds(30)).until(() -> count("allot.jobs.dispatch.rate.limited", "dispatched") >= 3);
    nanos.addAndGet(Duration.ofSeconds(1).toNanos()); // one second of permits: 5 jobs
    await().atMost(Duration.ofSeconds(30)).until(() -> limited.stats(0).count(JobStatus.FINISHED) == 5);
  }
}
