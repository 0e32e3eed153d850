package io.allot.store.memory;

import io.allot.store.StoreClock;
import io.allot.store.queue.TaskQueue;
import io.allot.store.queue.TaskQueueContractTest;
import java.time.Duration;

/** The task-queue contract on the memory store's queues, with its real clock. */
class MemoryTaskQueueTest extends TaskQueueContractTest {
  private final long originNanos = System.nanoTime();
  private final long originMicros = System.currentTimeMillis() * 1000;
  private final MemoryTaskQueues queues =
      new MemoryTaskQueues(() -> originMicros + (System.nanoTime() - originNanos) / 1000, Duration.ofMillis(200));

  @Override
  protected TaskQueue queue(String name) {
    return queues.queue(name);
  }

  @Override
  protected StoreClock clock() {
    return () -> originMicros / 1000 + (System.nanoTime() - originNanos) / 1_000_000;
  }
}
