package io.allot.tasks;

import io.allot.worker.StopReason;
import java.time.Duration;
import java.util.Optional;

/** What a {@link TaskHandler} knows about the task it runs. Thread-safe. */
public interface TaskContext {
  /** The task's name. */
  String name();

  /** Its arguments: JSON text as created or last updated. */
  String args();

  /** The spec revision these arguments belong to. */
  long revision();

  /**
   * The fencing token of this member's ownership of the task: pass it to the resource the task writes to (see
   * {@code allot-fence}) so a write from an owner that was paused past its lease is rejected.
   */
  long token();

  /**
   * True once the handler must stop: the task moved or was deleted, this member's lease is no longer valid, or its
   * arguments changed (the runner then starts it again with the new ones). The thread is also interrupted.
   */
  boolean stopRequested();

  /** Why the handler must stop, if it must: a {@link StopReason}, or empty while running (or for an update). */
  Optional<StopReason> stopReason();

  /** True if the stop is for an update of the arguments (the task starts again at once with the new ones). */
  boolean restarting();

  /**
   * Waits until a stop is requested or {@code timeout} passes (a stop-aware sleep).
   *
   * @return {@link #stopRequested()}
   */
  boolean awaitStop(Duration timeout);
}
