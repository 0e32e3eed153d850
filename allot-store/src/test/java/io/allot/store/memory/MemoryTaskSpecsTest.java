package io.allot.store.memory;

import io.allot.store.Notifications;
import io.allot.store.StoreClock;
import io.allot.store.tasks.TaskSpecs;
import io.allot.store.tasks.TaskSpecsContractTest;
import org.junit.jupiter.api.AfterEach;

/** The task-specs contract on {@link MemoryStore}. */
class MemoryTaskSpecsTest extends TaskSpecsContractTest {
  private final MemoryStore store = new MemoryStore();

  @AfterEach
  void close() {
    store.close();
  }

  @Override
  protected TaskSpecs specs(String pool) {
    return store.taskSpecs(pool);
  }

  @Override
  protected StoreClock clock() {
    return store.clock();
  }

  @Override
  protected Notifications notifications() {
    return store.notifications();
  }
}
