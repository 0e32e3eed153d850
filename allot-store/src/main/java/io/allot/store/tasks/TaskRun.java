package io.allot.store.tasks;

import java.util.Objects;

/**
 * A confirmed start of a task: who runs it, under which fencing token and revision of the spec.
 *
 * @param member        the member id
 * @param token         the fencing token of its claim on the task's unit
 * @param revision      the spec revision it started with
 * @param startedMillis store time of the start report, epoch milliseconds (0 when the store fills it in)
 */
public record TaskRun(String member, long token, long revision, long startedMillis) {
  public TaskRun {
    Objects.requireNonNull(member, "member");
  }
}
