package io.allot.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;
import io.allot.store.tasks.TaskSpecs;
import io.allot.testkit.FakeDistributor;
import io.allot.worker.Divider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The README's long-running task example, compiled and run on the memory store (README lines stand here verbatim). */
class ReadmeTaskExample {
  /** The application's connection: records what it was opened with. */
  static final class Feed implements AutoCloseable {
    static final List<String> OPENED = new CopyOnWriteArrayList<>();

    static Feed open(String argsJson, long token) {
      OPENED.add(argsJson + " " + token);
      return new Feed();
    }

    /** Counted down by close(): a poll waits for data that never comes, until the timeout or the close. */
    private final CountDownLatch closed = new CountDownLatch(1);

    void poll(Duration timeout) throws InterruptedException {
      closed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
      closed.countDown();
    }
  }

  static TaskRunner observe(Store store) {
    Divider.Builder member = Divider.builder(store).pool("observers").capacity(TaskCapacity.fromResources());
    TaskRunner runner = TaskRunner.builder(member, task -> {
      try (Feed feed = Feed.open(task.args(), task.token())) { // the args as created through the API
        while (!task.stopRequested()) {
          feed.poll(Duration.ofSeconds(1));
        }
      }
    }).build();
    runner.start();
    return runner;
  }

  @Test
  void runs() {
    try (Store store = new MemoryStore()) {
      TaskSpecs specs = store.taskSpecs("observers");
      specs.create("ticker.BTC-USD", "{\"venue\":\"x\"}", 1);
      try (TaskRunner runner = observe(store)) {
        new FakeDistributor(store, Divider.DEFAULT_DISTRIBUTION, "observers")
            .publish(runner.divider().memberId(), "ticker.BTC-USD");
        await().atMost(Duration.ofSeconds(10)).until(() -> !Feed.OPENED.isEmpty());
        assertThat(Feed.OPENED.get(0)).startsWith("{\"venue\":\"x\"} ");
        await().atMost(Duration.ofSeconds(10)).until(() -> specs.get("ticker.BTC-USD").orElseThrow().run() != null);
      }
    }
  }
}
