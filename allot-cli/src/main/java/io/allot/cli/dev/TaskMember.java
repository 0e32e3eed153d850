package io.allot.cli.dev;

import io.allot.store.Store;
import io.allot.tasks.TaskRunner;
import io.allot.worker.Divider;
import java.time.Duration;

/**
 * A member of the long-running tasks' pool: a {@link TaskRunner} running each task it owns with the task's arguments
 * until the task moves, is updated or deleted. Its capacity counts task costs. Stopping it closes the runner (its
 * tasks start on the other member); starting it again builds a new one. Thread-safe.
 */
final class TaskMember implements DevMember {
  private final Store store;
  private final DevNames names;
  private final int capacity;
  private TaskRunner runner; // guarded by this: null while stopped
  private String id = "(not started)"; // guarded by this: the member id of the last start

  TaskMember(Store store, DevNames names, int capacity) {
    this.store = store;
    this.names = names;
    this.capacity = capacity;
  }

  @Override
  public synchronized void start() {
    if (runner != null) {
      return;
    }
    Divider.Builder member = Divider.builder(store).pool(names.taskPool()).distribution(names.table())
        .host("127.0.0.1").port(0).capacity(capacity).shutdownGrace(Duration.ofSeconds(2));
    TaskRunner r = TaskRunner.builder(member, task -> {
      // a real task would hold a connection open with task.args() (a feed, a crawl) and fence writes by token
      while (!task.stopRequested()) {
        task.awaitStop(Duration.ofSeconds(1));
      }
    }).build();
    r.start();
    id = r.divider().memberId();
    runner = r;
  }

  @Override
  public synchronized void stop() {
    if (runner != null) {
      runner.close();
      runner = null;
    }
  }

  @Override
  public synchronized boolean running() {
    return runner != null;
  }

  @Override
  public synchronized int held() {
    return runner == null ? 0 : runner.divider().assigned().size();
  }

  @Override
  public synchronized String describe() {
    return "task member " + id + " of " + names.taskPool();
  }
}
