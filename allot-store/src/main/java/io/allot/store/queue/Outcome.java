package io.allot.store.queue;

/** What the store did with a completion or a failure report ({@link TaskQueue#finish}, {@link TaskQueue#fail}). */
public enum Outcome {
  /** Accepted: the task is {@link TaskStatus#FINISHED}. */
  FINISHED,
  /** Accepted: the task is {@link TaskStatus#FAILED} and runs again after its backoff. */
  RETRY_SCHEDULED,
  /** Accepted: the task used its last attempt and is {@link TaskStatus#IGNORED}. */
  IGNORED,
  /**
   * Refused, nothing changed: the token no longer holds the task's lock (it expired and another worker took the task,
   * or the task was retried, ignored or finished meanwhile). The caller's result must be thrown away.
   */
  REJECTED;

  /** True unless {@link #REJECTED}. */
  public boolean accepted() {
    return this != REJECTED;
  }
}
