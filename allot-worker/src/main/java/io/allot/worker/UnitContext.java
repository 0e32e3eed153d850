package io.allot.worker;

import java.time.Duration;
import java.util.Optional;

/** What a {@link UnitHandler} knows about the unit it runs. Thread-safe. */
public interface UnitContext {

  /** The unit. */
  String unit();

  /** The fencing token of this ownership (see {@link UnitStart#token()}). */
  long token();

  /**
   * True once the handler must stop: a stop arrived for the unit, or this member's lease is no longer valid (checked
   * locally, without waiting for the {@link StopReason#LEASE_LOST} event). The thread is also interrupted on a stop.
   */
  boolean stopRequested();

  /** Why the handler must stop, if it must. */
  Optional<StopReason> stopReason();

  /**
   * Waits until a stop is requested or {@code timeout} passes (a stop-aware sleep).
   *
   * @return {@link #stopRequested()}
   */
  boolean awaitStop(Duration timeout);
}
