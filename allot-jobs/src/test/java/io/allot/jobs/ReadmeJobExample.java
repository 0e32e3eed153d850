package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.Store;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The README's job example, compiled and run on the memory store (README lines stand here verbatim). */
class ReadmeJobExample {
  /** The application's side effect: records each mail once per token. */
  static final class Mailer {
    final Map<String, Long> sent = new ConcurrentHashMap<>();

    void send(String key, String json, long token) {
      sent.put(key + " " + json, token);
    }
  }

  static void enqueueAndWork(Store store, Mailer mailer) {
    JobQueue emails = store.jobQueue("emails");
    emails.enqueue(NewJob.of("welcome-42", "{\"to\":\"ada@example.org\"}").withMaxAttempts(3));

    try (JobWorker worker = JobWorker.builder(emails, job -> mailer.send(job.key(), job.data(), job.token()))
        .concurrency(8)
        .lockTtl(Duration.ofMinutes(2))
        .rateLimit(50) // jobs per second, over every worker of the queue
        .build()
        .start()) {
      await().atMost(Duration.ofSeconds(10))
          .until(() -> emails.get("welcome-42").orElseThrow().status() == JobStatus.FINISHED);
    }
  }

  @Test
  void runs() {
    Mailer mailer = new Mailer();
    try (Store store = new MemoryStore()) {
      enqueueAndWork(store, mailer);
    }
    assertThat(mailer.sent).containsOnlyKeys("welcome-42 {\"to\":\"ada@example.org\"}");
  }
}
