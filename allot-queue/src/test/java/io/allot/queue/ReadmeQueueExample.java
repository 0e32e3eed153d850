package io.allot.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;
import io.allot.store.queue.NewTask;
import io.allot.store.queue.TaskQueue;
import io.allot.store.queue.TaskStatus;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The README's finite-task example, compiled and run on the memory store (README lines stand here verbatim). */
class ReadmeQueueExample {
  /** The application's side effect: records each mail once per token. */
  static final class Mailer {
    final Map<String, Long> sent = new ConcurrentHashMap<>();

    void send(String key, String json, long token) {
      sent.put(key + " " + json, token);
    }
  }

  static void enqueueAndWork(Store store, Mailer mailer) {
    TaskQueue emails = store.taskQueue("emails");
    emails.enqueue(NewTask.of("welcome-42", "{\"to\":\"ada@example.org\"}").withMaxAttempts(3));

    try (QueueWorker worker = QueueWorker.builder(emails, task -> mailer.send(task.key(), task.data(), task.token()))
        .concurrency(8)
        .lockTtl(Duration.ofMinutes(2))
        .rateLimit(50) // tasks per second, over every worker of the queue
        .build()
        .start()) {
      await().atMost(Duration.ofSeconds(10))
          .until(() -> emails.get("welcome-42").orElseThrow().status() == TaskStatus.FINISHED);
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
