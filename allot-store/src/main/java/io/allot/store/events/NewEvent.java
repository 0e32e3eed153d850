package io.allot.store.events;

import java.util.Objects;

/**
 * An event to {@link Events#append append}: what the component that saw it says. The store adds the id and the time.
 * A detail longer than {@value #MAX_TEXT} characters (or an actor or subject longer than {@value #MAX_NAME}) is cut
 * there and ends with {@code …}: an event is one human line, never a payload.
 *
 * @param pool the pool it concerns, or null (store-wide, e.g. a job queue's event)
 * @param kind what happened
 * @param actor who saw or did it (a member id, {@code distributor}, {@code api:<address>}); not empty
 * @param subject the unit, member, task or job it is about, or null
 * @param detail one human line (may be empty, never null)
 */
public record NewEvent(String pool, EventKind kind, String actor, String subject, String detail) {
  /** The longest detail kept. */
  public static final int MAX_TEXT = 2000;
  /** The longest actor or subject kept. */
  public static final int MAX_NAME = 300;

  /** Checks and cuts; {@link IllegalArgumentException} naming the bad field. */
  public NewEvent {
    Objects.requireNonNull(kind, "kind");
    if (pool != null && pool.isEmpty()) {
      throw new IllegalArgumentException("pool: must be null or a non-empty name but was ''");
    }
    if (actor == null || actor.isBlank()) {
      throw new IllegalArgumentException("actor: must be a non-empty name but was " + (actor == null ? "null" : "'" + actor + "'"));
    }
    actor = cut(actor, MAX_NAME);
    subject = subject == null ? null : cut(subject, MAX_NAME);
    detail = detail == null ? "" : cut(detail, MAX_TEXT);
  }

  private static String cut(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }
}
