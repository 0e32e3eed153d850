package io.allot.worker;

import java.util.Objects;

/**
 * This member must stop running {@code unit}; {@link #reason()} says why and whether the SDK waits for
 * {@link Divider#confirmStop(String)}.
 *
 * @param unit   the work unit
 * @param reason why it must stop
 */
public record UnitStop(String unit, StopReason reason) implements UnitEvent {
  public UnitStop {
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(reason, "reason");
  }
}
