package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobMetricsTest {
  @Test
  void gaugesShowTheCountsPerStatus() {
    try (MemoryStore store = new MemoryStore()) {
      JobQueue q = store.jobQueue("m");
      q.enqueue(List.of(NewJob.of("a"), NewJob.of("b"), NewJob.of("c")));
      ClaimedJob c = q.claim("w", 1, Duration.ofMinutes(1)).get(0);
      q.finish(c.key(), c.token());
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (JobMetrics m = JobMetrics.bind(q, meters, Duration.ofHours(1), store.clock()::timeMillis)) {
        m.poll();
        assertThat(meters.get("allot.jobs.status").tag("queue", "m").tag("status", "todo").gauge().value()).isEqualTo(2);
        assertThat(meters.get("allot.jobs.status").tag("status", "finished").gauge().value()).isEqualTo(1);
        assertThat(meters.get("allot.jobs.status").tag("status", "ignored").gauge().value()).isZero();
        assertThat(meters.get("allot.jobs.oldest.todo.age").gauge().value()).isGreaterThanOrEqualTo(0);
      }
      assertThatThrownBy(() -> JobMetrics.bind(q, new SimpleMeterRegistry(), Duration.ofMillis(5), () -> 0))
          .hasMessageContaining("interval");
    }
  }
}
