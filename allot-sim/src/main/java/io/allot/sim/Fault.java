package io.allot.sim;

/** The kinds of fault the simulator injects (counted by kind in the {@link SimReport}). */
public enum Fault {
  /** A member process stops for a while: none of its SDK events run; its requests in flight still land. */
  PAUSE,
  /** A member process dies (kill -9): its handlers stop at once; it never comes back. */
  KILL,
  /** A new process starts for a member id that is down (killed, cancelled, or failed to start). */
  RESTART,
  /**
   * A second process starts with the id of one that is up (a supervisor restarting a frozen process, or two hosts
   * advertising one address): the store refuses it while the other's lease lives.
   */
  DUPLICATE,
  /** A member leaves gracefully ({@code Divider.cancel()}). */
  CANCEL,
  /** The application gives up one of its running units ({@code release(unit, token)}). */
  RELEASE,
  /** A member's link to the store goes down for a while: its requests and their answers are lost. */
  LINK,
  /** The store restarts, keeping its data. */
  STORE_RESTART,
  /** The store restarts and loses every record (a Redis without persistence). */
  STORE_WIPE,
  /** The store's clock steps forward or back (members keep the true time). */
  CLOCK_STEP,
  /** A unit is added to or removed from the unit set. */
  UNITS,
  /** A member changes its affinity (published with {@code Membership.update}). */
  AFFINITY,
  /** The distributor process restarts and forgets its state (its leadership lease runs out in the store). */
  DISTRIBUTOR_RESTART,
  /** A member cancels itself right after a self-fence (an {@code onLeaseLost} callback that shuts down). */
  CANCEL_ON_FENCE
}
