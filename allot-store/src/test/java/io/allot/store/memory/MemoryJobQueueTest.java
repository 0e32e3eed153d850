package io.allot.store.memory;

import io.allot.store.StoreClock;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobQueueContractTest;
import java.time.Duration;

/** The job-queue contract on the memory store's queues, with its real clock. */
class MemoryJobQueueTest extends JobQueueContractTest {
  private final long originNanos = System.nanoTime();
  private final long originMicros = System.currentTimeMillis() * 1000;
  private final MemoryJobQueues queues =
      new MemoryJobQueues(() -> originMicros + (System.nanoTime() - originNanos) / 1000, Duration.ofMillis(200));

  @Override
  protected JobQueue queue(String name) {
    return queues.queue(name);
  }

  @Override
  protected StoreClock clock() {
    return () -> originMicros / 1000 + (System.nanoTime() - originNanos) / 1_000_000;
  }
}
