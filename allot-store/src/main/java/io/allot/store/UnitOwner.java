package io.allot.store;

/**
 * Who may run a unit right now: the owner's id and session, and the fencing token it got when it claimed the unit.
 * Tokens strictly increase within a pool, so a later owner always has a larger one.
 */
public record UnitOwner(String unit, String member, long session, long token) {}
