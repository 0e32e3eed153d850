package io.allot.worker;

import java.util.Objects;

/**
 * This member must stop running {@code unit}; {@link #reason()} says why and whether the SDK waits for
 * {@link Divider#confirmStop(String, long)}.
 *
 * @param unit   the work unit
 * @param token  the fencing token of the run to stop (the one its {@link UnitStart} carried): confirm with it, so that
 *               a late confirmation of an earlier run of the same unit can never release a later one
 * @param reason why it must stop
 */
public record UnitStop(String unit, long token, StopReason reason) implements UnitEvent {
  public UnitStop {
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(reason, "reason");
  }
}
