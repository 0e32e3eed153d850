package io.allot.worker;

import java.util.Objects;

/**
 * This member now owns {@code unit} and must start running it.
 *
 * @param unit  the work unit
 * @param token the fencing token of this ownership: it strictly increases every time the unit changes hands (or is
 *              claimed again), so a write that carries it can be checked with
 *              {@link io.allot.store.Ownership#validToken(String, String, long, long)} and a stale one rejected
 */
public record UnitStart(String unit, long token) implements UnitEvent {
  public UnitStart {
    Objects.requireNonNull(unit, "unit");
  }
}
