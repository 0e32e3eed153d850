package io.allot.worker;

/**
 * What a {@link Divider} tells the application about one unit: {@link UnitStart} or {@link UnitStop}. Events of
 * one divider are delivered in order, on one SDK thread.
 */
public sealed interface UnitEvent permits UnitStart, UnitStop {

  /** The unit this event is about. */
  String unit();
}
