package io.allot.worker;

/** Why a unit must stop. */
public enum StopReason {
  /**
   * The table gave the unit to another member. Stop it, then call {@link Divider#confirmStop(String, long)} with the
   * stop's token: the unit is released in the store only then, and the next owner can claim it only after that. Until
   * confirmed, the unit stays owned by this member (it counts against capacity and appears in
   * {@link Divider#assigned()}).
   */
  REASSIGNED,
  /**
   * The application called {@link Divider#release(String, long)}. Stop it (if it still runs), then call
   * {@link Divider#confirmStop(String, long)}: the unit is then released in the store with the release hold, so the
   * distributor gives it to another member at once.
   */
  RELEASED,
  /**
   * Self-fencing: this member could not renew its lease in time (store unreachable, partition, long pause) or the
   * store refused the renewal. Stop at once; no confirmation is waited for. The unit is forgotten locally and expires
   * with the lease, after which another member may claim it. May follow an unconfirmed {@link #REASSIGNED},
   * {@link #RELEASED} or {@link #SHUTDOWN} stop of the same run, meaning "now, without waiting".
   */
  LEASE_LOST,
  /**
   * {@link Divider#cancel()}: the member is shutting down. Stop, then call {@link Divider#confirmStop(String, long)}
   * so the unit is released at once; a unit not confirmed within the shutdown grace expires with the lease instead.
   */
  SHUTDOWN;

  /** True if the SDK waits for {@link Divider#confirmStop(String, long)} after a stop for this reason. */
  public boolean awaitsConfirmation() {
    return this != LEASE_LOST;
  }
}
