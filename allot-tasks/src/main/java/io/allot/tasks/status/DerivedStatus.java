package io.allot.tasks.status;

import java.util.Objects;

/**
 * The outcome of {@link TaskStatuses#derive}: the state and what goes with it.
 *
 * @param state  the status
 * @param owner  the member holding a live claim on the task (session current, lease live), or null
 * @param token  that claim's fencing token, or null
 * @param reason why it is {@link TaskStatus#PENDING}; null otherwise
 */
public record DerivedStatus(TaskStatus state, String owner, Long token, String reason) {
  public DerivedStatus {
    Objects.requireNonNull(state, "state");
    if ((owner == null) != (token == null)) {
      throw new IllegalArgumentException("owner and token go together: " + owner + ", " + token);
    }
    if ((state == TaskStatus.PENDING) != (reason != null)) {
      throw new IllegalArgumentException("a reason goes with Pending and only with it: " + state + ", " + reason);
    }
  }
}
