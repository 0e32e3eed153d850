package io.allot.worker;

/**
 * The work of one unit, run by a {@link UnitRunner} on its own thread for as long as this member owns the unit.
 * Return (or throw) when {@link UnitContext#stopRequested()} becomes true or the thread is interrupted.
 */
@FunctionalInterface
public interface UnitHandler {

  /**
   * Runs the unit until told to stop. Returning without a stop request means the unit is done (or gave up): the
   * runner then {@linkplain Divider#release(String, long) releases} it, and it runs again after the release hold if the
   * table still gives it to this member. An exception is logged and treated the same way.
   */
  void run(UnitContext context) throws Exception;
}
