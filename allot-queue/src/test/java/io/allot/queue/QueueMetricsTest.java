package io.allot.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.memory.MemoryStore;
import io.allot.store.queue.ClaimedTask;
import io.allot.store.queue.NewTask;
import io.allot.store.queue.TaskQueue;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueueMetricsTest {
  @Test
  void gaugesShowTheCountsPerStatus() {
    try (MemoryStore store = new MemoryStore()) {
      TaskQueue q = store.taskQueue("m");
      q.enqueue(List.of(NewTask.of("a"), NewTask.of("b"), NewTask.of("c")));
      ClaimedTask c = q.claim("w", 1, Duration.ofMinutes(1)).get(0);
      q.finish(c.key(), c.token());
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (QueueMetrics m = QueueMetrics.bind(q, meters, Duration.ofHours(1), store.clock()::timeMillis)) {
        m.poll();
        assertThat(meters.get("allot.queue.size").tag("queue", "m").tag("status", "todo").gauge().value()).isEqualTo(2);
        assertThat(meters.get("allot.queue.size").tag("status", "finished").gauge().value()).isEqualTo(1);
        assertThat(meters.get("allot.queue.size").tag("status", "ignored").gauge().value()).isZero();
        assertThat(meters.get("allot.queue.oldest_todo_age_seconds").gauge().value()).isGreaterThanOrEqualTo(0);
      }
      assertThatThrownBy(() -> QueueMetrics.bind(q, new SimpleMeterRegistry(), Duration.ofMillis(5), () -> 0))
          .hasMessageContaining("interval");
    }
  }
}
