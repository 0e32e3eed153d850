package io.allot.store;

import java.util.Objects;
import java.util.Optional;

/**
 * One unit of a planned handoff ({@link Ownership#handOffAll}): the unit, the token its old owner holds it by, and
 * the member the table gives it to next ({@code to}; null for a plain release). Immutable.
 *
 * <p>When the store grants the unit to {@code to} in the same step as the release, it announces the grant on
 * {@link Topic#releases(String)} with the message {@link #grantMessage(UnitOwner)}: {@code U+0001 token | session |
 * member | unit}. A plain release announces the unit itself, as before, so existing subscribers keep working (a grant
 * message names no unit of theirs). Sessions are unique in a pool (one counter issues them), so a member that knows
 * its own id and session reads a grant to itself unambiguously, whatever '|' the member id or the unit holds
 * ({@link #grantTo}). Unit names starting with U+0001 are therefore reserved.
 *
 * @param unit  the unit to release
 * @param token the token the releasing member holds it by (compare-and-delete)
 * @param to    the member to grant it to at once, or null
 */
public record Handoff(String unit, long token, String to) {
  /** The first character of every grant message. */
  public static final char GRANT = '\u0001';

  public Handoff {
    Objects.requireNonNull(unit, "unit");
    if (to != null && to.isEmpty()) {
      throw new IllegalArgumentException("handoff of unit '" + unit + "': member to hand it to is empty");
    }
  }

  /** A plain release of {@code unit} held by {@code token}. */
  public static Handoff release(String unit, long token) {
    return new Handoff(unit, token, null);
  }

  /** The release announcement of a unit granted to {@code owner} in the release's store step. */
  public static String grantMessage(UnitOwner owner) {
    return GRANT + Long.toString(owner.token()) + '|' + owner.session() + '|' + owner.member() + '|' + owner.unit();
  }

  /** True if {@code message} (on {@link Topic#releases(String)}) is a grant, not a plain release. */
  public static boolean isGrant(String message) {
    return !message.isEmpty() && message.charAt(0) == GRANT;
  }

  /**
   * The grant in {@code message} if it grants a unit to {@code member}'s session {@code session}; empty for a plain
   * release, a grant to another member or session, or a malformed message.
   */
  public static Optional<UnitOwner> grantTo(String message, String member, long session) {
    if (!isGrant(message)) {
      return Optional.empty();
    }
    int a = message.indexOf('|', 1);
    int b = a < 0 ? -1 : message.indexOf('|', a + 1);
    if (b < 0) {
      return Optional.empty();
    }
    String rest = message.substring(b + 1);
    if (!rest.startsWith(member + "|")) {
      return Optional.empty();
    }
    try {
      long token = Long.parseLong(message.substring(1, a));
      long s = Long.parseLong(message.substring(a + 1, b));
      if (s != session) {
        return Optional.empty();
      }
      return Optional.of(new UnitOwner(rest.substring(member.length() + 1), member, s, token));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
