package io.allot.jobs;

import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.postgres.PostgresStore;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A throughput figure, not an assertion: empty jobs through one dispatcher and two endpoints on PostgreSQL, and
 * as the baseline in the same run two {@link JobWorker}s claiming from the store themselves with the same total
 * concurrency. Run with {@code -Dallot.dispatch.bench=true} (size with {@code -Dallot.dispatch.jobs=N}).
 */
@EnabledIfSystemProperty(named = "allot.dispatch.bench", matches = "true")
class PostgresDispatchThroughputTest {

  @Test
  void printsJobsPerSecond() throws Exception {
    int n = Integer.getInteger("allot.dispatch.jobs", 20_000);
    int capacity = Integer.getInteger("allot.dispatch.capacity", 32);
    double viaDispatcher = run(n, capacity, true);
    double viaWorkers = run(n, capacity, false);
    System.out.printf("DISPATCH-BENCH jobs=%d capacity/endpoint=%d dispatcher+2 endpoints: %.0f jobs/s;"
        + " 2 JobWorkers (baseline): %.0f jobs/s; ratio %.2f%n", n, capacity, viaDispatcher, viaWorkers,
        viaDispatcher / viaWorkers);
  }

  private static double run(int n, int capacity, boolean dispatch) throws Exception {
    io.allot.testkit.PostgresSchema schema = io.allot.testkit.PostgresSchema.create("allot_qdb");
    try (PostgresStore store = PostgresStore.connect(schema.uri())) {
      JobQueue q = store.jobQueue("bench");
      for (int i = 0; i < n; i += 1000) {
        int from = i;
        q.enqueue(IntStream.range(from, Math.min(n, from + 1000)).mapToObj(k -> NewJob.of("t" + k)).toList());
      }
      long t0 = System.nanoTime();
      if (dispatch) {
        try (EndpointServer e1 = new EndpointServer(JobEndpoint.builder(t -> { }).capacity(capacity).build());
            EndpointServer e2 = new EndpointServer(JobEndpoint.builder(t -> { }).capacity(capacity).build());
            JobDispatcher d = JobDispatcher.builder(q, EndpointSource.fixed(e1.address(), e2.address()))
                .leadership(store.leadership()).batchSize(capacity).completionThreads(Integer.getInteger("allot.dispatch.completionThreads", 16))
                .pollInterval(Duration.ofMillis(5)).build().start()) {
          waitDone(q, n);
          t0 = elapsedStart(t0);
        }
      } else {
        try (JobWorker w1 = JobWorker.builder(q, t -> { }).concurrency(capacity).pollInterval(Duration.ofMillis(5))
                .build().start();
            JobWorker w2 = JobWorker.builder(store.jobQueue("bench"), t -> { }).concurrency(capacity)
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

  private static void waitDone(JobQueue q, int n) {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(10))
        .pollInterval(java.time.Duration.ofMillis(20)).until(() -> q.stats(0).count(JobStatus.FINISHED) >= n);
  }
}
