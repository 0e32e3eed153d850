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

/**
 * Two dispatchers (as two processes, each with its own store client) elect a leader on PostgreSQL; the leader pushes
 * the queue's jobs to two endpoints; the leader is closed half way and the standby finishes the queue.
 */
class PostgresJobDispatcherTest {
  @AutoClose // drops the schema after each test
  private final PostgresSchema schema = PostgresSchema.create("allot_qd");

  @Test
  void everyJobFinishesExactlyOnceAcrossALeaderChange() throws Exception {
    int n = 1000;
    List<String> finished = Collections.synchronizedList(new ArrayList<>());
    AttemptListener record = end -> {
      if (end.outcome() == AttemptOutcome.FINISHED) {
        finished.add(end.key());
      }
    };
    try (PostgresStore a = PostgresStore.connect(schema.uri()); PostgresStore b = PostgresStore.connect(schema.uri());
        EndpointServer e1 = new EndpointServer(JobEndpoint.builder(t -> { }).capacity(8).endpointId("e1").build());
        EndpointServer e2 = new EndpointServer(JobEndpoint.builder(t -> { }).capacity(8).endpointId("e2").build())) {
      JobQueue qa = a.jobQueue("jobs");
      for (int i = 0; i < n; i += 500) {
        int from = i;
        qa.enqueue(IntStream.range(from, from + 500).mapToObj(k -> NewJob.of("t" + k)).toList());
      }
      EndpointSource both = EndpointSource.fixed(e1.address(), e2.address());
      JobDispatcher first = JobDispatcher.builder(qa, both).leadership(a.leadership()).dispatcherId("first")
          .leaseTtl(Duration.ofSeconds(1)).lockTtl(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
          .listener(record).build().start();
      await().atMost(Duration.ofSeconds(10)).until(first::isLeading);
      try (JobDispatcher second = JobDispatcher.builder(b.jobQueue("jobs"), both).leadership(b.leadership())
          .dispatcherId("second").leaseTtl(Duration.ofSeconds(1)).lockTtl(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(20)).listener(record).build().start()) {
        await().atMost(Duration.ofSeconds(60)).until(() -> finished.size() >= n / 4);
        first.close();
        await().atMost(Duration.ofSeconds(10)).until(second::isLeading);
        await().atMost(Duration.ofSeconds(60)).until(() -> finished.size() >= n);
      } finally {
        first.close();
      }
      assertThat(finished).hasSize(n).doesNotHaveDuplicates();
      assertThat(qa.stats(0).count(JobStatus.FINISHED)).isEqualTo(n);
      assertThat(e1.endpoint.running()).isZero();
    }
  }
}
