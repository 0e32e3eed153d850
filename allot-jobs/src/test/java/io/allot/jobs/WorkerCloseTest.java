package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.Store;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.allot.store.postgres.PostgresStore;
import io.allot.store.spi.Proxies;
import io.allot.testkit.PostgresSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 18, item 3: a worker's close() must give back what it claimed and did not run to its end, without counting
 * the attempt: never a failure of an interrupt of its own making, never a claim thread dead of a shut handler pool.
 * On the memory store and on PostgreSQL.
 */
class WorkerCloseTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private static final Duration LONG_LOCK = Duration.ofMinutes(5);

  private static Store open(String store, Closer closer) {
    if (store.equals("memory")) {
      return closer.add(new MemoryStore());
    }
    PostgresSchema schema = closer.add(PostgresSchema.create("allot_wclose"));
    return closer.add(PostgresStore.connect(schema.uri()));
  }

  /** {@code q} with a job of one attempt (its first is its last) per key. */
  private static JobQueue lastAttempts(JobQueue q, String... keys) {
    q.enqueue(java.util.Arrays.stream(keys).map(k -> NewJob.of(k).withMaxAttempts(1)).toList());
    return q;
  }

  /**
   * Each job, once nobody holds it any more (a job still PROCESSING after close would wait for its lock), is todo
   * again with its attempt unused and no error: given back.
   */
  private static void assertGivenBack(JobQueue q, String... keys) {
    for (String key : keys) {
      await().atMost(PATIENCE).until(() -> q.get(key).orElseThrow().status() != JobStatus.PROCESSING);
      Job j = q.get(key).orElseThrow();
      assertThat(j.status()).as(key).isEqualTo(JobStatus.TODO);
      assertThat(j.attempts()).as(key).isZero();
      assertThat(j.lastError()).as(key).isEmpty();
    }
  }

  /** A test run once on the memory store and once on PostgreSQL (a schema of its own): its argument names which. */
  @Target(ElementType.METHOD)
  @Retention(RetentionPolicy.RUNTIME)
  @ParameterizedTest
  @ValueSource(strings = {"memory", "postgresql"})
  @interface OnEveryStore {}

  @OnEveryStore
  void handlersInterruptedByCloseGiveTheirJobsBackWithoutUsingTheAttempt(String store) throws Exception {
    try (Closer closer = new Closer()) {
      JobQueue q = lastAttempts(open(store, closer).jobQueue("interrupted"), "running", "waiting");
      CountDownLatch started = new CountDownLatch(1);
      JobWorkerTest.Ends ends = new JobWorkerTest.Ends();
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      JobWorker w = JobWorker.builder(q, t -> {
        started.countDown();
        Thread.sleep(TimeUnit.MINUTES.toMillis(5)); // still running when the drain timeout is over
      }).listener(ends).meterRegistry(meters).concurrency(1).prefetch(1).batchSize(2).lockTtl(LONG_LOCK)
          .drainTimeout(Duration.ofMillis(100)).pollInterval(Duration.ofMillis(10)).build().start();
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      await().atMost(PATIENCE).until(() -> w.running() == 2); // one runs, one waits for the handler
      w.close();
      assertGivenBack(q, "running", "waiting");
      assertThat(ends.byOutcome).isEmpty(); // given back: no attempt ended, none failed
      await().atMost(PATIENCE).until(() -> meters.get("allot.jobs.given.back").counter().count() == 2.0);
      // and the next claim gets it, on its first attempt, with a larger token
      long before = q.get("running").orElseThrow().token();
      assertThat(q.claim("next", 2, LONG_LOCK)).allSatisfy(c -> {
        assertThat(c.attempt()).isEqualTo(1);
        assertThat(c.token()).isGreaterThan(before);
      }).hasSize(2);
    }
  }

  @OnEveryStore
  void aClaimStillInFlightAtCloseGivesItsJobsBack(String store) throws Exception {
    try (Closer closer = new Closer()) {
      JobQueue real = lastAttempts(open(store, closer).jobQueue("racing"), "a", "b");
      CountDownLatch claiming = new CountDownLatch(1);
      CountDownLatch answer = new CountDownLatch(1);
      JobQueue q = gated(real, claiming, answer);
      JobWorker w = JobWorker.builder(q, t -> { }).concurrency(2).lockTtl(LONG_LOCK)
          .drainTimeout(Duration.ofMillis(100)).pollInterval(Duration.ofMillis(10)).build().start();
      assertThat(claiming.await(10, TimeUnit.SECONDS)).isTrue();
      w.close(); // the claim is still in flight: close gives up waiting for it and shuts the handler pool
      answer.countDown(); // now the claim locks both jobs and returns them to a closed worker
      assertGivenBack(real, "a", "b");
      assertThat(real.claim("next", 2, LONG_LOCK)).extracting(c -> c.attempt()).containsExactly(1, 1);
    }
  }

  /** {@code q}, whose first claim says it started ({@code claiming}) and reaches the store only after {@code answer}. */
  /**
   * The handler's give-back after close's interrupt reaches the store although the handler thread was interrupted: a
   * store client that honours interrupts (HikariCP waiting for a connection: seen in CI run 31, "interrupted while
   * waiting for postgresql://...", the job left PROCESSING) must not see close's own interrupt.
   */
  @org.junit.jupiter.api.Test
  void theGiveBackOfAnInterruptedHandlerIsNotRefusedForTheInterrupt() throws Exception {
    try (MemoryStore store = new MemoryStore()) {
      JobQueue real = lastAttempts(store.jobQueue("interrupt-aware"), "running");
      JobQueue q = (JobQueue) Proxy.newProxyInstance(JobQueue.class.getClassLoader(), new Class<?>[] {JobQueue.class},
          (proxy, m, args) -> {
            if (Thread.currentThread().isInterrupted()) { // as a blocking client would: refuse on an interrupted thread
              throw new io.allot.store.StoreUnavailableException("interrupted while waiting for the store");
            }
            return Proxies.invoke(real, m, args);
          });
      CountDownLatch started = new CountDownLatch(1);
      JobWorker w = JobWorker.builder(q, t -> {
        started.countDown();
        Thread.sleep(TimeUnit.MINUTES.toMillis(5));
      }).concurrency(1).prefetch(0).lockTtl(LONG_LOCK).drainTimeout(Duration.ofMillis(100))
          .pollInterval(Duration.ofMillis(10)).build().start();
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      w.close();
      assertGivenBack(real, "running");
    }
  }

  private static JobQueue gated(JobQueue q, CountDownLatch claiming, CountDownLatch answer) {
    return (JobQueue) Proxy.newProxyInstance(JobQueue.class.getClassLoader(), new Class<?>[] {JobQueue.class},
        (proxy, m, args) -> {
          if (m.getName().equals("claim") && claiming.getCount() > 0) {
            claiming.countDown();
            answer.await();
          }
          return Proxies.invoke(q, m, args);
        });
  }
}
