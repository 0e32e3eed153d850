package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryJobQueues;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The worker against the memory store's queues (the store's own behaviour is its contract test's business). */
class JobWorkerTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private final long origin = System.nanoTime();
  private final long originMicros = System.currentTimeMillis() * 1000;
  private final MemoryJobQueues queues =
      new MemoryJobQueues(() -> originMicros + (System.nanoTime() - origin) / 1000, Duration.ofMillis(50));

  /** Accepted and refused ends of attempts, as the listener saw them. */
  static final class Ends implements AttemptListener {
    final Map<AttemptOutcome, List<String>> byOutcome = new ConcurrentHashMap<>();

    @Override
    public void ended(AttemptEnd end) {
      byOutcome.computeIfAbsent(end.outcome(), o -> Collections.synchronizedList(new ArrayList<>())).add(end.key());
    }

    List<String> of(AttemptOutcome o) {
      return byOutcome.getOrDefault(o, List.of());
    }
  }

  private static List<NewJob> jobs(int n) {
    return IntStream.range(0, n).mapToObj(i -> NewJob.of("k" + i, "d" + i)).toList();
  }

  @Test
  void aHandlerThatReturnsFinishesEachJobOnce() {
    JobQueue q = queues.queue("ok");
    q.enqueue(jobs(50));
    Ends ends = new Ends();
    Map<String, String> seen = new ConcurrentHashMap<>();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (JobWorker w = JobWorker.builder(q, t -> seen.put(t.key(), t.data())).listener(ends).concurrency(3)
        .batchSize(8).pollInterval(Duration.ofMillis(20)).meterRegistry(meters).build().start()) {
      await().atMost(PATIENCE).until(() -> ends.of(AttemptOutcome.FINISHED).size() == 50);
    }
    assertThat(ends.of(AttemptOutcome.FINISHED)).doesNotHaveDuplicates();
    assertThat(seen).hasSize(50).containsEntry("k7", "d7");
    assertThat(q.stats(0).count(JobStatus.FINISHED)).isEqualTo(50);
    assertThat(meters.get("allot.jobs.attempts").tag("outcome", "finished").counter().count()).isEqualTo(50.0);
  }

  @Test
  void aThrowingHandlerIsRetriedWithBackoffThenIgnoredWithItsError() {
    JobQueue q = queues.queue("failing");
    q.enqueue(List.of(NewJob.of("always").withMaxAttempts(3), NewJob.of("once")));
    AtomicInteger onceTries = new AtomicInteger();
    Ends ends = new Ends();
    try (JobWorker w = JobWorker.builder(q, t -> {
      if (t.key().equals("always") || onceTries.incrementAndGet() == 1) {
        throw new IllegalStateException("boom on attempt " + t.attempt());
      }
    }).listener(ends).backoff(Backoff.fixed(Duration.ofMillis(10))).pollInterval(Duration.ofMillis(10)).build()
        .start()) {
      await().atMost(PATIENCE).until(() -> ends.of(AttemptOutcome.IGNORED).size() == 1 && ends.of(AttemptOutcome.FINISHED).size() == 1);
    }
    Job always = q.get("always").orElseThrow();
    assertThat(always.status()).isEqualTo(JobStatus.IGNORED);
    assertThat(always.attempts()).isEqualTo(3);
    assertThat(always.lastError()).isEqualTo("java.lang.IllegalStateException: boom on attempt 3");
    assertThat(ends.of(AttemptOutcome.RETRY_SCHEDULED)).containsExactlyInAnyOrder("always", "always", "once");
    assertThat(q.get("once").orElseThrow().attempts()).isEqualTo(2);
  }

  @Test
  void neverMoreHandlersAtOnceThanTheConcurrency() {
    JobQueue q = queues.queue("busy");
    q.enqueue(jobs(40));
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    Ends ends = new Ends();
    try (JobWorker w = JobWorker.builder(q, t -> {
      most.accumulateAndGet(now.incrementAndGet(), Math::max);
      Thread.sleep(5); // work
      now.decrementAndGet();
    }).listener(ends).concurrency(3).batchSize(10).pollInterval(Duration.ofMillis(10)).build().start()) {
      await().atMost(PATIENCE).until(() -> ends.of(AttemptOutcome.FINISHED).size() == 40);
    }
    assertThat(most.get()).isBetween(1, 3);
  }

  @Test
  void neverMoreLockedThanConcurrencyPlusPrefetch() throws Exception {
    for (int prefetch : new int[] {0, 3}) {
      JobQueue q = queues.queue("prefetch-" + prefetch);
      q.enqueue(jobs(20));
      CountDownLatch release = new CountDownLatch(1);
      try (JobWorker w = JobWorker.builder(q, t -> release.await()).concurrency(2).batchSize(8).prefetch(prefetch)
          .pollInterval(Duration.ofMillis(10)).drainTimeout(Duration.ofSeconds(5)).build().start()) {
        await().atMost(PATIENCE).until(() -> w.running() == 2 + prefetch);
        // the dispatcher keeps polling meanwhile: nothing more is locked than the handlers plus the buffer
        await().pollDelay(Duration.ofMillis(100)).atMost(PATIENCE)
            .until(() -> q.stats(0).count(JobStatus.PROCESSING) == 2 + prefetch);
        release.countDown();
      }
    }
  }

  @Test
  void aLongHandlerKeepsItsLockByExtendingIt() {
    JobQueue q = queueWithOne("long", "slow");
    CountDownLatch release = new CountDownLatch(1);
    Ends ends = new Ends();
    try (JobWorker w = JobWorker.builder(q, t -> release.await()).listener(ends).lockTtl(Duration.ofMillis(90))
        .pollInterval(Duration.ofMillis(10)).build().start()) {
      await().atMost(PATIENCE).until(() -> w.running() == 1);
      long lockedUntil = q.get("slow").orElseThrow().dueAtMillis();
      // well past the first lock (plus the clock margin), it is still ours: extended meanwhile, never claimable
      await().atMost(PATIENCE).until(() -> q.get("slow").orElseThrow().dueAtMillis() > lockedUntil + 200);
      assertThat(q.claim("intruder", 1, Duration.ofMinutes(1))).isEmpty();
      release.countDown();
      await().atMost(PATIENCE).until(() -> ends.of(AttemptOutcome.FINISHED).size() == 1);
    }
    assertThat(q.get("slow").orElseThrow().attempts()).isEqualTo(1);
  }

  @Test
  void anAttemptWhoseLockWasTakenAwayIsToldAndItsResultRefused() {
    JobQueue q = queueWithOne("taken", "t");
    CountDownLatch release = new CountDownLatch(1);
    Ends ends = new Ends();
    AtomicInteger sawStop = new AtomicInteger();
    try (JobWorker w = JobWorker.builder(q, t -> {
      release.await();
      await().atMost(PATIENCE).until(t::stopRequested);
      sawStop.incrementAndGet();
    }).listener(ends).lockTtl(Duration.ofMillis(90)).pollInterval(Duration.ofMillis(10)).build().start()) {
      await().atMost(PATIENCE).until(() -> w.running() == 1);
      long token = q.get("t").orElseThrow().token();
      q.ignore(List.of("t")); // by hand: the running attempt loses its lock
      release.countDown();
      await().atMost(PATIENCE).until(() -> ends.of(AttemptOutcome.REJECTED).size() == 1);
      assertThat(q.finish("t", token)).isEqualTo(JobOutcome.REJECTED);
    }
    assertThat(sawStop.get()).isEqualTo(1);
    assertThat(q.get("t").orElseThrow().status()).isEqualTo(JobStatus.IGNORED);
  }

  @Test
  void closeLetsRunningHandlersFinishAndClaimsNothingMore() throws Exception {
    JobQueue q = queues.queue("drain");
    q.enqueue(jobs(2));
    CountDownLatch started = new CountDownLatch(2);
    Ends ends = new Ends();
    JobWorker w = JobWorker.builder(q, t -> {
      started.countDown();
      Thread.sleep(200); // work in progress while close() is called
    }).listener(ends).concurrency(2).pollInterval(Duration.ofMillis(10)).build().start();
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    q.enqueue(NewJob.of("late"));
    w.close();
    assertThat(ends.of(AttemptOutcome.FINISHED)).containsExactlyInAnyOrder("k0", "k1");
    assertThat(q.get("late").orElseThrow().status()).isEqualTo(JobStatus.TODO);
    w.close(); // idempotent
  }

  @Test
  void theRateLimitIsSetInTheStoreForEveryWorker() {
    JobQueue q = queues.queue("limited");
    try (JobWorker w = JobWorker.builder(q, t -> { }).rateLimit(5).build().start()) {
      assertThat(q.stats(0).ratePerSecond()).isEqualTo(5.0);
    }
  }

  @Test
  void badSettingsAreNamed() {
    JobQueue q = queues.queue("bad");
    JobHandler h = t -> { };
    assertThatThrownBy(() -> JobWorker.builder(q, h).concurrency(0)).hasMessageContaining("concurrency");
    assertThatThrownBy(() -> JobWorker.builder(q, h).batchSize(10_001)).hasMessageContaining("batchSize");
    assertThatThrownBy(() -> JobWorker.builder(q, h).lockTtl(Duration.ofMillis(5))).hasMessageContaining("lockTtl");
    assertThatThrownBy(() -> JobWorker.builder(q, h).pollInterval(Duration.ZERO)).hasMessageContaining("pollInterval");
    assertThatThrownBy(() -> JobWorker.builder(q, h).rateLimit(-2)).hasMessageContaining("rate limit");
    assertThatThrownBy(() -> JobWorker.builder(q, h).workerId("")).hasMessageContaining("worker");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), 2, Duration.ofSeconds(1))).hasMessageContaining("max");
    JobWorker w = JobWorker.builder(q, h).build();
    w.start();
    assertThatThrownBy(w::start).hasMessageContaining("already started");
    w.close();
  }

  @Test
  void backoffGrowsToItsMaximum() {
    Backoff b = new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(5));
    assertThat(b.after(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(b.after(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(b.after(3)).isEqualTo(Duration.ofSeconds(4));
    assertThat(b.after(4)).isEqualTo(Duration.ofSeconds(5));
    assertThat(b.after(1000)).isEqualTo(Duration.ofSeconds(5));
  }

  /** The queue {@code name} with one job, {@code key}, enqueued. */
  private JobQueue queueWithOne(String name, String key) {
    JobQueue q = queues.queue(name);
    q.enqueue(NewJob.of(key));
    return q;
  }
}
