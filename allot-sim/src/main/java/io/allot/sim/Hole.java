package io.allot.sim;

/**
 * A fix of issue 8 that a configuration can revert, to prove that the simulator catches the hole it closed. The
 * simulator must find a violation for some seeds of each, and none with {@link #NONE}.
 */
public enum Hole {
  /** The protocol as it is: every fix in place. */
  NONE("every fix in place"),
  /** Hole 1: the store's lost-state guard is 0, and store restarts lose their data. */
  LOST_STATE_GUARD("hole 1: lostStateGuard = 0 while store restarts lose data"),
  /** Hole 2: the store's clock margin is 0, and the store's clock steps forward. */
  CLOCK_MARGIN("hole 2: clockMargin = 0 while the store's clock steps"),
  /** Hole 3: {@code cancel()} after a self-fence deregisters at once instead of waiting out the old lease. */
  CANCEL_AFTER_FENCE("hole 3: cancel() after a self-fence deregisters at once"),
  /** Hole 5: a confirmation or a release names the unit only; the SDK applies it to whatever run it holds. */
  CONFIRM_BY_UNIT("hole 5: confirmStop/release by unit only, tokens ignored"),
  /**
   * Found by the simulator: settling claims in doubt after a self-fence released units the fenced session still ran
   * (the SDK now drops the doubt when the lease generation changed).
   */
  IN_DOUBT_AFTER_FENCE("found: claims in doubt settled after a self-fence");

  private final String description;

  Hole(String description) {
    this.description = description;
  }

  /** What the configuration reverts. */
  public String description() {
    return description;
  }
}
