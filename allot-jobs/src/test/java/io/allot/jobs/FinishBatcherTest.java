package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** {@link FinishBatcher}: every submitted finish is answered, also one that races the batcher's close. */
class FinishBatcherTest {

  @Test
  void aFinishIsAnsweredWithTheStoresOutcome() {
    try (MemoryStore store = new MemoryStore()) {
      JobQueue q = store.jobQueue("b");
      q.enqueue(NewJob.of("a"));
      ClaimedJob c = q.claim("w", 1, Duration.ofMinutes(1)).get(0);
      FinishBatcher b = new FinishBatcher(q, 8);
      try {
        assertThat(b.submit("a", c.token())).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(JobOutcome.FINISHED);
        assertThat(b.submit("a", c.token())).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(JobOutcome.REJECTED);
      } finally {
        b.close();
      }
    }
  }

  @Test
  void aFinishSubmittedAfterCloseFailsAtOnceInsteadOfWaitingForever() {
    try (MemoryStore store = new MemoryStore()) {
      FinishBatcher b = new FinishBatcher(store.jobQueue("b"), 8);
      b.close();
      // the first may still be drained by the ending loop; the second surely comes after the loop ended
      for (String key : new String[] {"a", "b"}) {
        assertThat(b.submit(key, 1)).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
            .withCauseInstanceOf(StoreUnavailableException.class);
      }
    }
  }
}
