package io.allot.queue.dispatch;

import io.allot.queue.QueueWorker;
import io.allot.store.postgres.PostgresStore;
import io.allot.store.queue.NewTask;
import io.allot.store.queue.TaskQueue;
import io.allot.store.queue.TaskStatus;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A throughput figure, not an assertion: empty tasks through one dispatcher and two endpoints on PostgreSQL, and
 * as the baseline in the same run two {@link QueueWorker}s claiming from the store themselves with the same total
 * concurrency. Run with {@code -Dallot.dispatch.bench=true} (size with {@code -Dallot.dispatch.tasks=N}).
 */
@EnabledIfSystemProperty(named = "allot.dispatch.bench", matches = "true")
class PostgresDispatchThroughputTest {

  @Test
  void printsTasksPerSecond() throws Exception {
    int n = Integer.getInteger("allot.dispatch.tasks", 20_000);
    int capacity = Integer.getInteger("allot.dispatch.capacity", 32);
    double viaDispatcher = run(n, capacity, true);
    double viaWorkers = run(n, capacity, false);
    System.out.printf("DISPATCH-BENCH tasks=%d capacity/endpoint=%d dispatcher+2 endpoints: %.0f tasks/s;"
        + " 2 QueueWorkers (baseline): %.0f tasks/s; ratio %.2f%n", n, capacity, viaDispatcher, viaWorkers,
        viaDispatcher / viaWorkers);
  }

  private static double run(int n, int capacity, boolean dispatch) throws Exception {
    io.allot.testkit.PostgresSchema schema = io.allot.testkit.PostgresSchema.create("allot_qdb");
    try (PostgresStore store = PostgresStore.connect(schema.uri())) {
      TaskQueue q = store.taskQueue("bench");
      for (int i = 0; i < n; i += 1000) {
        int from = i;
        q.enqueue(IntStream.range(from, Math.min(n, from + 1000)).mapToObj(k -> NewTask.of("t" + k)).toList());
      }
      long t0 = System.nanoTime();
      if (dispatch) {
        try (EndpointServer e1 = new EndpointServer(TaskEndpoint.builder(t -> { }).capacity(capacity).build());
            EndpointServer e2 = new EndpointServer(TaskEndpoint.builder(t -> { }).capacity(capacity).build());
            TaskDispatcher d = TaskDispatcher.builder(q, EndpointSource.fixed(e1.address(), e2.address()))
                .leadership(store.leadership()).batchSize(capacity).completionThreads(Integer.getInteger("allot.dispatch.completionThreads", 16))
                .pollInterval(Duration.ofMillis(5)).build().start()) {
          waitDone(q, n);
          t0 = elapsedStart(t0);
        }
      } else {
        try (QueueWorker w1 = QueueWorker.builder(q, t -> { }).concurrency(capacity).pollInterval(Duration.ofMillis(5))
                .build().start();
            QueueWorker w2 = QueueWorker.builder(store.taskQueue("bench"), t -> { }).concurrency(capacity)
                .pollInterval(Duration.ofMillis(5)).build().start()) {
          waitDone(q, n);
          t0 = elapsedStart(t0);
        }
      }
      return n / (t0 / 1e9);
    } finally {
      schema.close();
    }
  }

  private static long elapsedStart(long t0) {
    return System.nanoTime() - t0;
  }

  private static void waitDone(TaskQueue q, int n) {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(10))
        .pollInterval(java.time.Duration.ofMillis(20)).until(() -> q.stats(0).count(TaskStatus.FINISHED) >= n);
  }
}
