package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.EventWriter;
import io.allot.store.events.RecordedEvent;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A job the store ignores when its attempts are used up is a {@code job-ignored} event of the history. */
class IgnoredJobEventTest {
  private static List<RecordedEvent> ignoredEvents(MemoryStore store) {
    return store.events().query(EventQuery.all().ofKinds(Set.of(EventKind.JOB_IGNORED))).events();
  }

  @Test
  void aJobWhoseAttemptsAreUsedUpIsAJobIgnoredEventNamingItsErrorAndWhereItRan() {
    try (MemoryStore store = new MemoryStore()) {
      JobQueue q = store.jobQueue("mail");
      q.enqueue(List.of(NewJob.of("bounce").withMaxAttempts(2), NewJob.of("fine")));
      try (JobWorker w = JobWorker.builder(q, t -> {
        if (t.key().equals("bounce")) {
          throw new IllegalStateException("550 mailbox unavailable");
        }
      }).workerId("mailer-1").backoff(Backoff.fixed(Duration.ofMillis(10))).pollInterval(Duration.ofMillis(20))
          .events(EventWriter.of(store)).build().start()) {
        await().atMost(Duration.ofSeconds(20)).until(() -> !ignoredEvents(store).isEmpty());
      }
      assertThat(q.get("bounce").orElseThrow().status()).isEqualTo(JobStatus.IGNORED);
      List<RecordedEvent> events = ignoredEvents(store);
      assertThat(events).hasSize(1); // one event for the job, none for its retried first attempt nor the finished job
      RecordedEvent e = events.get(0);
      assertThat(e.subject()).isEqualTo("mail/bounce");
      assertThat(e.actor()).contains("mailer-1");
      assertThat(e.detail()).contains("attempt 2").contains("550 mailbox unavailable");
    }
  }

  @Test
  void withoutAnEventWriterNothingIsWritten() {
    try (MemoryStore store = new MemoryStore()) {
      JobQueue q = store.jobQueue("mail");
      q.enqueue(List.of(NewJob.of("bounce").withMaxAttempts(1)));
      try (JobWorker w = JobWorker.builder(q, t -> {
        throw new IllegalStateException("boom");
      }).pollInterval(Duration.ofMillis(20)).build().start()) {
        await().atMost(Duration.ofSeconds(20)).until(() -> q.get("bounce").orElseThrow().status() == JobStatus.IGNORED);
      }
      assertThat(ignoredEvents(store)).isEmpty();
    }
  }
}
