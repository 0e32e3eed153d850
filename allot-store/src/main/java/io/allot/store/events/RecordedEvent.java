package io.allot.store.events;

import java.time.Instant;

/**
 * An event as the store keeps it.
 *
 * @param id its cursor: unique in the store and growing with every append (paging and streams resume after it)
 * @param time when the store recorded it, by the store's clock (milliseconds)
 * @param pool the pool it concerns, or null
 * @param kind what happened
 * @param actor who saw or did it
 * @param subject what it is about, or null
 * @param detail one human line
 */
public record RecordedEvent(long id, Instant time, String pool, EventKind kind, String actor, String subject,
    String detail) {

  /** The recorded form of {@code e} with the given id and time. */
  public static RecordedEvent of(long id, long timeMillis, NewEvent e) {
    return new RecordedEvent(id, Instant.ofEpochMilli(timeMillis), e.pool(), e.kind(), e.actor(), e.subject(),
        e.detail());
  }

  /** The id as the cursor string clients pass back ({@code after}, {@code Last-Event-ID}). */
  public String cursor() {
    return Long.toString(id);
  }

  /**
   * The id of a cursor string.
   *
   * @throws IllegalArgumentException naming {@code what} (e.g. {@code after}) if it is not a cursor
   */
  public static long parseCursor(String what, String cursor) {
    try {
      long id = Long.parseLong(cursor.trim());
      if (id >= 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException(what + ": not an event cursor: '" + cursor + "'");
  }
}
