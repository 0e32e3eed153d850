package io.allot.store;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Unit ownership in one pool: at most one owner per unit, each claim with a fencing token. Tokens and sessions come
 * from one counter per pool, so successive owners of a unit hold strictly increasing tokens. Releases are announced
 * on {@link Topic#releases(String)} with the unit as message, so the next owner can claim at once.
 */
public interface Ownership {

  /** The pool this view is scoped to. */
  String pool();

  /**
   * Claims {@code unit} for {@code (member, session)}, atomically. Succeeds only if that session is current and its
   * lease is live, and the unit has no owner, or its owner's session is no longer current or its lease expired at
   * least {@link Safety#clockMargin()} ago (store time), or the owner is this very session (a repeated claim returns
   * the token it already holds); and the pool is not waiting out its lost-state guard ({@link
   * Safety#lostStateGuard()}). A new token is larger than every token issued in the pool before and never below the
   * store time in microseconds, so tokens keep growing after the store lost data.
   *
   * @return the fencing token; empty if refused
   */
  OptionalLong claim(String unit, String member, long session);

  /**
   * Claims each of {@code units} as {@link #claim} would, in one round trip where the store can. Each claim is
   * atomic on its own; the batch is not all-or-nothing.
   *
   * @return unit to fencing token for the units claimed (refused ones are absent)
   */
  Map<String, Long> claimAll(List<String> units, String member, long session);

  /** Gives up {@code unit} if {@code (member, token)} still owns it (compare-and-delete); true if released. */
  boolean release(String unit, String member, long token);

  /**
   * Releases each unit of {@code tokens} (unit to the token {@code member} holds it by) as
   * {@link #release(String, String, long)} would, in one round trip and one store write where the store can: a
   * planned handoff releases many units at once, and the next owners claim each on its release announcement. Each
   * release is atomic on its own; the batch is not all-or-nothing.
   *
   * @return the units released, in the order of {@code tokens}
   */
  Set<String> releaseAll(Map<String, Long> tokens, String member);

  /**
   * A planned handoff of a batch: each unit is released as {@link #release(String, String, long)} would
   * (compare-and-delete on {@code (member, token)}), and a released unit whose {@link Handoff#to()} is set is granted
   * at once, in the same atomic step, to that member's current session, if that session's lease is live and the pool
   * is not waiting out its lost-state guard: a new token by the rule of {@link #claim} (larger than every token of the
   * pool before, never below the store time in microseconds), announced on {@link Topic#releases(String)} as
   * {@link Handoff#grantMessage(UnitOwner)}. Otherwise the unit is just released and announced as today (the next
   * owner claims it). One round trip and one store write where the store can; each unit atomic on its own. A grant
   * to {@code member} itself is not made (a plain release).
   *
   * <p>The default releases only ({@link #releaseAll}): a store without push handoffs stays correct, the next owner
   * claims.
   *
   * @return the units released (granted or not), in the order of {@code handoffs}
   */
  default Set<String> handOffAll(List<Handoff> handoffs, String member) {
    Map<String, Long> tokens = new java.util.LinkedHashMap<>();
    for (Handoff h : handoffs) {
      tokens.put(h.unit(), h.token());
    }
    return releaseAll(tokens, member);
  }

  /**
   * {@link #release(String, String, long)}, and if released, records that {@code member} declines {@code unit} for
   * {@code hold} (store time): the distributor gives it to another member meanwhile ({@link #holds()}). A zero hold
   * records nothing.
   */
  boolean release(String unit, String member, long token, Duration hold);

  /** The holds of the pool whose time has not run out, by unit (at most one per unit: the latest). */
  Map<String, UnitHold> holds();

  /** The current owners of the pool's units by unit, including owners whose lease has expired. */
  Map<String, UnitOwner> owners();

  /** The current owners of {@code units} (units without an owner are absent): a cheap read for a few units. */
  Map<String, UnitOwner> ownersOf(Collection<String> units);

  /**
   * True if {@code (member, session)} owns {@code unit} with {@code token} and that session's lease is live: the
   * check a fenced write makes against the store (a write carrying a stale token must be rejected). For a check in
   * the resource itself, see the fencing helpers of {@code allot-fence}.
   */
  boolean validToken(String unit, String member, long session, long token);
}
