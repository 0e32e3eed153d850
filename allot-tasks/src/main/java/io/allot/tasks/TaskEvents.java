package io.allot.tasks;

import io.allot.store.events.EventKind;
import io.allot.store.events.EventWriter;
import io.allot.store.events.NewEvent;
import io.allot.store.tasks.TaskSpec;

/**
 * What a {@link TaskRunner} tells the event history, as its member, written {@link EventWriter#writeLater later}
 * (never delaying a task): a task starting ({@code task-status}, {@code Created -> Processing} for a first run), each
 * failure ({@code task-failed}) and a task becoming Failed ({@code task-status}, {@code Processing -> Failed}).
 * Thread-safe (no state).
 */
final class TaskEvents {
  private final EventWriter writer;
  private final String pool;

  TaskEvents(EventWriter writer, String pool) {
    this.writer = writer;
    this.pool = pool;
  }

  /** {@code member} starts the task of {@code spec} (as read before the start). */
  void started(String member, TaskSpec spec) {
    String detail = spec.run() == null ? "Created -> Processing on " + member
        : spec.run().member().equals(member) ? "Processing again on " + member + " (revision " + spec.revision() + ")"
        : "Processing on " + member + " (was on " + spec.run().member() + ")";
    writer.writeLater(new NewEvent(pool, EventKind.TASK_STATUS, member, spec.name(), detail));
  }

  /** The task {@code name} failed on {@code member}: its {@code failures}th failure in the window. */
  void failed(String member, String name, int failures, boolean nowFailing, String error) {
    writer.writeLater(new NewEvent(pool, EventKind.TASK_FAILED, member, name, "failure " + failures + ": " + error));
    if (nowFailing) {
      writer.writeLater(new NewEvent(pool, EventKind.TASK_STATUS, member, name, "Processing -> Failed after "
          + failures + " failures"));
    }
  }
}
