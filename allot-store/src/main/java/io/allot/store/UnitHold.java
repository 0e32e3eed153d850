package io.allot.store;

/**
 * A member declined a unit until a store time: it released the unit with a hold ({@link Ownership#release(String,
 * String, long, java.time.Duration)}), and the distributor gives the unit to another member meanwhile.
 *
 * @param unit        the unit
 * @param member      the member that declined it
 * @param untilMillis store time (epoch millis) when the hold ends
 */
public record UnitHold(String unit, String member, long untilMillis) {}
