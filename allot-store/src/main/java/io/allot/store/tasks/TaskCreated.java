package io.allot.store.tasks;

import java.util.Objects;

/**
 * What {@link TaskSpecs#create} did.
 *
 * @param outcome what happened
 * @param spec    the spec as it is now (the existing one for {@code EXISTS} and {@code CONFLICT})
 */
public record TaskCreated(Outcome outcome, TaskSpec spec) {

  /** What happened. */
  public enum Outcome {
    /** A new spec was written. */
    CREATED,
    /** A live spec with the same arguments and cost was there; nothing changed. */
    EXISTS,
    /** A live spec with other arguments or cost was there; nothing changed. */
    CONFLICT
  }

  public TaskCreated {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(spec, "spec");
  }
}
