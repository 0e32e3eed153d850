package io.allot.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.memory.MemoryTaskQueues;
import io.allot.store.queue.NewTask;
import io.allot.store.queue.Outcome;
import io.allot.store.queue.Task;
import io.allot.store.queue.TaskQueue;
import io.allot.store.queue.TaskStatus;
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
class QueueWorkerTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private final long origin = System.nanoTime();
  private final long originMicros = System.currentTimeMillis() * 1000;
  private final MemoryTaskQueues queues =
      new MemoryTaskQueues(() -> originMicros + (System.nanoTime() - origin) / 1000, Duration.ofMillis(50));

  /** Accepted and refused ends of attempts, as the listener saw them. */
  static final class Ends implements CompletionListener {
    final Map<Outcome, List<String>> byOutcome = new ConcurrentHashMap<>();

    @Override
    public void completed(TaskContext task, Outcome outcome, Throwable error) {
      byOutcome.computeIfAbsent(outcome, o -> Collections.synchronizedList(new ArrayList<>())).add(task.key());
    }

    List<String> of(Outcome o) {
      return byOutcome.getOrDefault(o, List.of());
    }
  }

  private static List<NewTask> tasks(int n) {
    return IntStream.range(0, n).mapToObj(i -> NewTask.of("k" + i, "d" + i)).toList();
  }

  @Test
  void aHandlerThatReturnsFinishesEachTaskOnce() {
    TaskQueue q = queues.queue("ok");
    q.enqueue(tasks(50));
    Ends ends = new Ends();
    Map<String, String> seen = new ConcurrentHashMap<>();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (QueueWorker w = QueueWorker.builder(q, t -> seen.put(t.key(), t.data())).listener(ends).concurrency(3)
        .batchSize(8).pollInterval(Duration.ofMillis(20)).meterRegistry(meters).build().start()) {
      await().atMost(PATIENCE).until(() -> ends.of(Outcome.FINISHED).size() == 50);
    }
    assertThat(ends.of(Outcome.FINISHED)).doesNotHaveDuplicates();
    assertThat(seen).hasSize(50).containsEntry("k7", "d7");
    assertThat(q.stats(0).count(TaskStatus.FINISHED)).isEqualTo(50);
    assertThat(meters.get("allot.queue.tasks").tag("outcome", "finished").counter().count()).isEqualTo(50.0);
  }

  @Test
  void aThrowingHandlerIsRetriedWithBackoffThenIgnoredWithItsError() {
    TaskQueue q = queues.queue("failing");
    q.enqueue(List.of(NewTask.of("always").withMaxAttempts(3), NewTask.of("once")));
    AtomicInteger onceTries = new AtomicInteger();
    Ends ends = new Ends();
    try (QueueWorker w = QueueWorker.builder(q, t -> {
      if (t.key().equals("always") || onceTries.incrementAndGet() == 1) {
        throw new IllegalStateException("boom on attempt " + t.attempt());
      }
    }).listener(ends).backoff(Backoff.fixed(Duration.ofMillis(10))).pollInterval(Duration.ofMillis(10)).build()
        .start()) {
      await().atMost(PATIENCE).until(() -> ends.of(Outcome.IGNORED).size() == 1 && ends.of(Outcome.FINISHED).size() == 1);
    }
    Task always = q.get("always").orElseThrow();
    assertThat(always.status()).isEqualTo(TaskStatus.IGNORED);
    assertThat(always.attempts()).isEqualTo(3);
    assertThat(always.lastError()).isEqualTo("java.lang.IllegalStateException: boom on attempt 3");
    assertThat(ends.of(Outcome.RETRY_SCHEDULED)).containsExactlyInAnyOrder("always", "always", "once");
    assertThat(q.get("once").orElseThrow().attempts()).isEqualTo(2);
  }

  @Test
  void neverMoreHandlersAtOnceThanTheConcurrency() {
    TaskQueue q = queues.queue("busy");
    q.enqueue(tasks(40));
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    Ends ends = new Ends();
    try (QueueWorker w = QueueWorker.builder(q, t -> {
      most.accumulateAndGet(now.incrementAndGet(), Math::max);
      Thread.sleep(5); // work
      now.decrementAndGet();
    }).listener(ends).concurrency(3).batchSize(10).pollInterval(Duration.ofMillis(10)).build().start()) {
      await().atMost(PATIENCE).until(() -> ends.of(Outcome.FINISHED).size() == 40);
    }
    assertThat(most.get()).isBetween(1, 3);
  }

  @Test
  void neverMoreLockedThanConcurrencyPlusPrefetch() throws Exception {
    for (int prefetch : new int[] {0, 3}) {
      TaskQueue q = queues.queue("prefetch-" + prefetch);
      q.enqueue(tasks(20));
      CountDownLatch release = new CountDownLatch(1);
      try (QueueWorker w = QueueWorker.builder(q, t -> release.await()).concurrency(2).batchSize(8).prefetch(prefetch)
          .pollInterval(Duration.ofMillis(10)).drainTimeout(Duration.ofSeconds(5)).build().start()) {
        await().atMost(PATIENCE).until(() -> w.running() == 2 + prefetch);
        // the dispatcher keeps polling meanwhile: nothing more is locked than the handlers plus the buffer
        await().pollDelay(Duration.ofMillis(100)).atMost(PATIENCE)
            .until(() -> q.stats(0).count(TaskStatus.PROCESSING) == 2 + prefetch);
        release.countDown();
      }
    }
  }

  @Test
  void aLongHandlerKeepsItsLockByExtendingIt() {
    TaskQueue q = queues.queue("long");
    q.enqueue(NewTask.of("slow"));
    CountDownLatch release = new CountDownLatch(1);
    Ends ends = new Ends();
    try (QueueWorker w = QueueWorker.builder(q, t -> release.await()).listener(ends).lockTtl(Duration.ofMillis(90))
        .pollInterval(Duration.ofMillis(10)).build().start()) {
      await().atMost(PATIENCE).until(() -> w.running() == 1);
      long lockedUntil = q.get("slow").orElseThrow().dueAtMillis();
      // well past the first lock (plus the clock margin), it is still ours: extended meanwhile, never claimable
      await().atMost(PATIENCE).until(() -> q.get("slow").orElseThrow().dueAtMillis() > lockedUntil + 200);
      assertThat(q.claim("intruder", 1, Duration.ofMinutes(1))).isEmpty();
      release.countDown();
      await().atMost(PATIENCE).until(() -> ends.of(Outcome.FINISHED).size() == 1);
    }
    assertThat(q.get("slow").orElseThrow().attempts()).isEqualTo(1);
  }

  @Test
  void anAttemptWhoseLockWasTakenAwayIsToldAndItsResultRefused() {
    TaskQueue q = queues.queue("taken");
    q.enqueue(NewTask.of("t"));
    CountDownLatch release = new CountDownLatch(1);
    Ends ends = new Ends();
    AtomicInteger sawLockLost = new AtomicInteger();
    try (QueueWorker w = QueueWorker.builder(q, t -> {
      release.await();
      await().atMost(PATIENCE).until(t::lockLost);
      sawLockLost.incrementAndGet();
    }).listener(ends).lockTtl(Duration.ofMillis(90)).pollInterval(Duration.ofMillis(10)).build().start()) {
      await().atMost(PATIENCE).until(() -> w.running() == 1);
      long token = q.get("t").orElseThrow().token();
      q.ignore(List.of("t")); // by hand: the running attempt loses its lock
      release.countDown();
      await().atMost(PATIENCE).until(() -> ends.of(Outcome.REJECTED).size() == 1);
      assertThat(q.finish("t", token)).isEqualTo(Outcome.REJECTED);
    }
    assertThat(sawLockLost.get()).isEqualTo(1);
    assertThat(q.get("t").orElseThrow().status()).isEqualTo(TaskStatus.IGNORED);
  }

  @Test
  void closeLetsRunningHandlersFinishAndClaimsNothingMore() throws Exception {
    TaskQueue q = queues.queue("drain");
    q.enqueue(tasks(2));
    CountDownLatch started = new CountDownLatch(2);
    Ends ends = new Ends();
    QueueWorker w = QueueWorker.builder(q, t -> {
      started.countDown();
      Thread.sleep(200); // work in progress while close() is called
    }).listener(ends).concurrency(2).pollInterval(Duration.ofMillis(10)).build().start();
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    q.enqueue(NewTask.of("late"));
    w.close();
    assertThat(ends.of(Outcome.FINISHED)).containsExactlyInAnyOrder("k0", "k1");
    assertThat(q.get("late").orElseThrow().status()).isEqualTo(TaskStatus.TODO);
    w.close(); // idempotent
  }

  @Test
  void theRateLimitIsSetInTheStoreForEveryWorker() {
    TaskQueue q = queues.queue("limited");
    try (QueueWorker w = QueueWorker.builder(q, t -> { }).rateLimit(5).build().start()) {
      assertThat(q.stats(0).ratePerSecond()).isEqualTo(5.0);
    }
  }

  @Test
  void badSettingsAreNamed() {
    TaskQueue q = queues.queue("bad");
    TaskHandler h = t -> { };
    assertThatThrownBy(() -> QueueWorker.builder(q, h).concurrency(0)).hasMessageContaining("concurrency");
    assertThatThrownBy(() -> QueueWorker.builder(q, h).batchSize(10_001)).hasMessageContaining("batchSize");
    assertThatThrownBy(() -> QueueWorker.builder(q, h).lockTtl(Duration.ofMillis(5))).hasMessageContaining("lockTtl");
    assertThatThrownBy(() -> QueueWorker.builder(q, h).pollInterval(Duration.ZERO)).hasMessageContaining("pollInterval");
    assertThatThrownBy(() -> QueueWorker.builder(q, h).rateLimit(-2)).hasMessageContaining("rate limit");
    assertThatThrownBy(() -> QueueWorker.builder(q, h).workerId("")).hasMessageContaining("worker");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), 2, Duration.ofSeconds(1))).hasMessageContaining("max");
    QueueWorker w = QueueWorker.builder(q, h).build();
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
}
