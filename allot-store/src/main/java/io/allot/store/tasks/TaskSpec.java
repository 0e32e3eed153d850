package io.allot.store.tasks;

import java.util.Objects;

/**
 * A long-running task's spec as the store holds it. Immutable. Times are store time in epoch milliseconds.
 *
 * @param name           unique in the pool ({@link TaskLimits#checkName})
 * @param args           the arguments, JSON text kept verbatim
 * @param cost           capacity units it takes on a member, at least 1
 * @param revision       grows by one with every change of arguments or cost, and on re-creation after a delete
 * @param createdMillis  when this incarnation was created
 * @param updatedMillis  when arguments, cost or desired state last changed
 * @param deletedMillis  when deletion was requested; 0 while live
 * @param run            the last confirmed start, or null
 * @param fault          the running handler's failures, or null
 */
public record TaskSpec(String name, String args, int cost, long revision, long createdMillis, long updatedMillis,
    long deletedMillis, TaskRun run, TaskFault fault) {

  public TaskSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(args, "args");
  }

  /** True once deletion was requested (a tombstone). */
  public boolean deleted() {
    return deletedMillis > 0;
  }
}
