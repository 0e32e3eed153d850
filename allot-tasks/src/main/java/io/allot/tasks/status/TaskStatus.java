package io.allot.tasks.status;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The status of a long-running task, derived from the store by {@link TaskStatuses#derive} and never set by hand.
 * Its JSON (and gRPC, and CLI) name is {@link #jsonName()}: {@code Created}, {@code Processing}, {@code OnDeleting},
 * {@code Deleted}, {@code Failed}, {@code Pending}.
 */
public enum TaskStatus {
  /** Live, no owner has confirmed a start yet (it is in the table, or some live member has room for it). */
  CREATED("Created"),
  /** Live, an owner with a live claim confirmed the start under its current fencing token. */
  PROCESSING("Processing"),
  /** Deletion requested; an owner's claim is still live (it is stopping the task, or its lease has not run out). */
  ON_DELETING("OnDeleting"),
  /** Deletion requested and no live claim remains: stopped everywhere. The spec is kept as a tombstone. */
  DELETED("Deleted"),
  /** Live and started, but its handler failed more than the worker's limit in a window (restarted with backoff). */
  FAILED("Failed"),
  /** Live, not started, in no member's field of the table, and no live member has room for its cost. */
  PENDING("Pending");

  private final String jsonName;

  TaskStatus(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The name in JSON, gRPC and the CLI, e.g. {@code OnDeleting}. */
  public String jsonName() {
    return jsonName;
  }

  @Override
  public String toString() {
    return jsonName;
  }

  /**
   * The state named {@code name} (its {@link #jsonName()}, case-insensitive).
   *
   * @throws IllegalArgumentException naming the bad value and the valid names
   */
  public static TaskStatus parse(String name) {
    for (TaskStatus s : values()) {
      if (s.jsonName.equalsIgnoreCase(name == null ? "" : name.trim())) {
        return s;
      }
    }
    throw new IllegalArgumentException("status '" + name + "' is not one of " + names());
  }

  /** The JSON names, comma-separated, for messages. */
  public static String names() {
    return Arrays.stream(values()).map(TaskStatus::jsonName).collect(Collectors.joining(", "));
  }
}
