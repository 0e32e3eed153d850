package io.allot.tasks.service;

import io.allot.store.tasks.TaskSpec;
import io.allot.tasks.status.DerivedStatus;
import io.allot.tasks.status.TaskStatus;
import java.util.Objects;

/**
 * A long-running task as the API shows it: its spec and its derived status. Immutable. Times are store time in
 * epoch milliseconds here; the JSON form ({@link TaskJson}) writes them as ISO-8601 UTC instants
 * ({@code 2026-11-23T10:15:30.123Z}).
 *
 * @param name          the task name, unique in the pool
 * @param args          the arguments: a JSON object in canonical text (keys sorted, no whitespace)
 * @param cost          capacity units it takes
 * @param revision      grows with every change of args or cost, and on re-creation
 * @param status        the derived status
 * @param owner         the member with a live claim on it, or null
 * @param token         that claim's fencing token, or null
 * @param createdMillis when this incarnation was created
 * @param updatedMillis when args, cost or desired state last changed
 * @param deletedMillis when deletion was requested; 0 while live
 * @param lastError     the handler's last error under the current run, or null
 * @param reason        why it is Pending, or null
 */
public record TaskView(String name, String args, int cost, long revision, TaskStatus status, String owner, Long token,
    long createdMillis, long updatedMillis, long deletedMillis, String lastError, String reason) {

  public TaskView {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(args, "args");
    Objects.requireNonNull(status, "status");
  }

  /** The view of {@code spec} with status {@code d}. */
  public static TaskView of(TaskSpec spec, DerivedStatus d) {
    return new TaskView(spec.name(), spec.args(), spec.cost(), spec.revision(), d.state(), d.owner(), d.token(),
        spec.createdMillis(), spec.updatedMillis(), spec.deletedMillis(),
        spec.fault() == null ? null : spec.fault().lastError(), d.reason());
  }
}
