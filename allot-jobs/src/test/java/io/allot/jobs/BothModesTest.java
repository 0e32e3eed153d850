package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * One {@link JobHandler}, unchanged, in a {@link JobWorker} and behind a {@link JobEndpoint}: the same failures are
 * kept (a {@link JobHandler.RetryAfter}'s wait and message in both), and the same {@link AttemptEnd} is told in both,
 * on the dispatcher and on the endpoint alike.
 */
class BothModesTest {
  private static final Duration LATER = Duration.ofHours(1);

  /** Fails its first attempt: "later" with a wait of an hour, "boom" with an exception; succeeds after that. */
  private static final JobHandler HANDLER = job -> {
    if (job.attempt() == 1 && job.key().equals("later")) {
      throw new JobHandler.RetryAfter("mailbox full", LATER);
    }
    if (job.attempt() == 1 && job.key().equals("boom")) {
      throw new IllegalStateException("boom");
    }
  };

  private static void enqueue(JobQueue q) {
    q.enqueue(List.of(NewJob.of("later"), NewJob.of("boom"), NewJob.of("fine")));
  }

  /** What both modes leave in the store: the handler's wait instead of the (1 ms) backoff, its failure text. */
  private static void checkStore(JobQueue q, long storeNowMillis) {
    Job later = q.get("later").orElseThrow();
    assertThat(later.status()).isEqualTo(JobStatus.FAILED);
    assertThat(later.lastError()).isEqualTo("mailbox full");
    assertThat(later.dueAtMillis()).isGreaterThanOrEqualTo(storeNowMillis + LATER.toMillis() - 60_000);
    assertThat(q.get("boom").orElseThrow().lastError()).isEqualTo("java.lang.IllegalStateException: boom");
    assertThat(q.get("fine").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
  }

  @Test
  void inAWorker() {
    Map<String, AttemptEnd> ends = new ConcurrentHashMap<>();
    try (MemoryStore store = new MemoryStore()) {
      JobQueue q = store.jobQueue("both");
      enqueue(q);
      long t0 = store.clock().timeMillis();
      try (JobWorker w = JobWorker.builder(q, HANDLER).workerId("w1").backoff(Backoff.fixed(Duration.ofMillis(1)))
          .pollInterval(Duration.ofMillis(10)).listener(e -> ends.putIfAbsent(e.key() + "#" + e.attempt(), e))
          .build().start()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> ends.containsKey("boom#2") && ends.size() == 4);
      }
      checkStore(q, t0);
      AttemptEnd later = ends.get("later#1");
      assertThat(later.outcome()).isEqualTo(AttemptOutcome.RETRY_SCHEDULED);
      assertThat(later.error()).contains("mailbox full");
      assertThat(later.ranBy()).isEqualTo("w1");
      assertThat(later.queue()).isEqualTo("both");
      assertThat(ends.get("boom#1").error()).contains("java.lang.IllegalStateException: boom");
      assertThat(ends.get("boom#2").outcome()).isEqualTo(AttemptOutcome.FINISHED);
      assertThat(ends.get("fine#1").error()).isEmpty();
    }
  }

  @Test
  void behindAnEndpoint() throws Exception {
    Map<String, AttemptEnd> onDispatcher = new ConcurrentHashMap<>();
    Map<String, AttemptEnd> onEndpoint = new ConcurrentHashMap<>();
    try (MemoryStore store = new MemoryStore();
        EndpointServer e = new EndpointServer(JobEndpoint.builder(HANDLER).endpointId("e1")
            .listener(end -> onEndpoint.putIfAbsent(end.key() + "#" + end.attempt(), end)).build())) {
      JobQueue q = store.jobQueue("both");
      enqueue(q);
      long t0 = store.clock().timeMillis();
      try (JobDispatcher d = JobDispatcher.builder(q, EndpointSource.fixed(e.address()))
          .backoff(Backoff.fixed(Duration.ofMillis(1))).pollInterval(Duration.ofMillis(10))
          .listener(end -> onDispatcher.putIfAbsent(end.key() + "#" + end.attempt(), end)).build().start()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> onEndpoint.containsKey("boom#2") && onEndpoint.size() == 4);
      }
      checkStore(q, t0);
      assertThat(onDispatcher).as("the same ends on both sides of the stream").isEqualTo(onEndpoint);
      AttemptEnd later = onEndpoint.get("later#1");
      assertThat(later.outcome()).isEqualTo(AttemptOutcome.RETRY_SCHEDULED);
      assertThat(later.error()).contains("mailbox full");
      assertThat(later.ranBy()).isEqualTo("e1");
      assertThat(later.queue()).isEqualTo("both");
      assertThat(onEndpoint.get("boom#1").error()).contains("java.lang.IllegalStateException: boom");
      assertThat(onEndpoint.get("fine#1").error()).isEmpty();
    }
  }
}
