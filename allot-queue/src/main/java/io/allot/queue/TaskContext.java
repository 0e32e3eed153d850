package io.allot.queue;

import io.allot.store.queue.ClaimedTask;
import java.util.Objects;

/**
 * One attempt of one task, as the handler sees it. Thread-safe: {@link #lockLost()} may be read from any thread.
 */
public final class TaskContext {
  private final String queue;
  private final ClaimedTask task;
  private final long claimedAtNanos;
  /** Set once the attempt's result is being reported (no more extensions); volatile. */
  private volatile boolean completing;
  /** Written by the lock extender, read by the handler: volatile. */
  private volatile boolean lockLost;
  /** The local monotonic time until which the lock surely holds; written by the extender only. Volatile. */
  private volatile long lockHeldUntilNanos;

  TaskContext(String queue, ClaimedTask task, long claimedAtNanos, long lockHeldUntilNanos) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.task = Objects.requireNonNull(task, "task");
    this.claimedAtNanos = claimedAtNanos;
    this.lockHeldUntilNanos = lockHeldUntilNanos;
  }

  /** The queue's name. */
  public String queue() {
    return queue;
  }

  /** The task's key. */
  public String key() {
    return task.key();
  }

  /** The task's payload. */
  public String data() {
    return task.data();
  }

  /** The lock's fencing token: make writes conditional on it (resource = {@link #key()}). */
  public long token() {
    return task.token();
  }

  /** Which attempt this is, from 1. */
  public int attempt() {
    return task.attempt();
  }

  /** The task's attempt limit. */
  public int maxAttempts() {
    return task.maxAttempts();
  }

  /**
   * True once the worker knows or must assume that this attempt no longer holds the task's lock: an extension was
   * refused (the lock expired and another worker may run the task), or the store could not be reached to extend it
   * before it ran out. A long handler should check it between steps and stop; its completion will be refused.
   */
  public boolean lockLost() {
    return lockLost || System.nanoTime() - lockHeldUntilNanos >= 0;
  }

  /** The claimed task as the store returned it. */
  public ClaimedTask claimed() {
    return task;
  }

  long claimedAtNanos() {
    return claimedAtNanos;
  }

  void extendedUntil(long nanos) {
    lockHeldUntilNanos = nanos;
  }

  void completing() {
    completing = true;
  }

  boolean isCompleting() {
    return completing;
  }

  void markLockLost() {
    lockLost = true;
  }

  @Override
  public String toString() {
    return "task " + task.key() + " of queue " + queue + " (attempt " + task.attempt() + "/" + task.maxAttempts()
        + ", token " + task.token() + ")";
  }
}
