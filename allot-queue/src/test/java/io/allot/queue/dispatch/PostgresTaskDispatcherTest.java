package io.allot.queue.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.postgres.PostgresStore;
import io.allot.testkit.PostgresSchema;
import io.allot.store.queue.NewTask;
import io.allot.store.queue.Outcome;
import io.allot.store.queue.TaskQueue;
import io.allot.store.queue.TaskStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two dispatchers (as two processes, each with its own store client) elect a leader on PostgreSQL; the leader pushes
 * the queue's tasks to two endpoints; the leader is closed half way and the standby finishes the queue.
 */
class PostgresTaskDispatcherTest {
  private final PostgresSchema schema = PostgresSchema.create("allot_qd");

  @AfterEach
  void drop() {
    schema.close();
  }

  @Test
  void everyTaskFinishesExactlyOnceAcrossALeaderChange() throws Exception {
    int n = 1000;
    List<String> finished = Collections.synchronizedList(new ArrayList<>());
    DispatchListener record = (t, endpoint, outcome, error) -> {
      if (outcome == Outcome.FINISHED) {
        finished.add(t.key());
      }
    };
    try (PostgresStore a = PostgresStore.connect(schema.uri()); PostgresStore b = PostgresStore.connect(schema.uri());
        EndpointServer e1 = new EndpointServer(TaskEndpoint.builder(t -> { }).capacity(8).endpointId("e1").build());
        EndpointServer e2 = new EndpointServer(TaskEndpoint.builder(t -> { }).capacity(8).endpointId("e2").build())) {
      TaskQueue qa = a.taskQueue("jobs");
      for (int i = 0; i < n; i += 500) {
        int from = i;
        qa.enqueue(IntStream.range(from, from + 500).mapToObj(k -> NewTask.of("t" + k)).toList());
      }
      EndpointSource both = EndpointSource.fixed(e1.address(), e2.address());
      TaskDispatcher first = TaskDispatcher.builder(qa, both).leadership(a.leadership()).dispatcherId("first")
          .leaseTtl(Duration.ofSeconds(1)).lockTtl(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
          .listener(record).build().start();
      await().atMost(Duration.ofSeconds(10)).until(first::isLeading);
      try (TaskDispatcher second = TaskDispatcher.builder(b.taskQueue("jobs"), both).leadership(b.leadership())
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
      assertThat(qa.stats(0).count(TaskStatus.FINISHED)).isEqualTo(n);
      assertThat(e1.endpoint.running()).isZero();
    }
  }
}
