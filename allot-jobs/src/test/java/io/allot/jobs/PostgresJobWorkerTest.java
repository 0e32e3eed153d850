package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.postgres.PostgresStore;
import io.allot.testkit.PostgresSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** Two workers, each with its own store client (as two processes), share one PostgreSQL queue. */
class PostgresJobWorkerTest {
  @AutoClose // drops the schema after each test
  private final PostgresSchema schema = PostgresSchema.create("allot_qw");

  @Test
  void twoWorkersFinishEveryJobExactlyOnce() {
    int n = 2000;
    List<String> accepted = Collections.synchronizedList(new ArrayList<>());
    try (PostgresStore a = PostgresStore.connect(schema.uri()); PostgresStore b = PostgresStore.connect(schema.uri())) {
      JobQueue qa = a.jobQueue("jobs");
      for (int i = 0; i < n; i += 500) {
        int from = i;
        qa.enqueue(IntStream.range(from, from + 500).mapToObj(k -> NewJob.of("t" + k)).toList());
      }
      AttemptListener record = end -> {
        if (end.outcome() == AttemptOutcome.FINISHED) {
          accepted.add(end.key());
        }
      };
      try (JobWorker w1 = JobWorker.builder(qa, t -> { }).listener(record).concurrency(4).batchSize(50)
              .pollInterval(Duration.ofMillis(20)).build().start();
          JobWorker w2 = JobWorker.builder(b.jobQueue("jobs"), t -> { }).listener(record).concurrency(4)
              .batchSize(50).pollInterval(Duration.ofMillis(20)).build().start()) {
        await().atMost(Duration.ofSeconds(60)).until(() -> accepted.size() >= n);
      }
      assertThat(accepted).hasSize(n).doesNotHaveDuplicates();
      assertThat(qa.stats(0).count(JobStatus.FINISHED)).isEqualTo(n);
    }
  }
}
