package io.allot.store.events;

/**
 * The event history: what the components saw (members up and down, leader changes, table epochs, self-fences,
 * refused claims, task status changes and failures, jobs retried or ignored by hand, API writes), kept in the store
 * with a bounded length per pool and an age limit ({@link EventRetention}). A log for people ("what happened at
 * 03:12?"), never used to decide anything: components write it best-effort through {@link EventWriter}.
 *
 * <p>Ids grow with every append across the whole store and become visible in id order (every store serializes
 * appends), so a reader resumes after the last id it saw and misses nothing still kept.
 */
public interface Events {

  /**
   * Records {@code event} with the store's time and the next id, then deletes what {@code retention} no longer keeps
   * (in the event's pool, and anything older than its age limit).
   *
   * @return the event as recorded
   */
  RecordedEvent append(NewEvent event, EventRetention retention);

  /** The events {@code query} asks for, oldest first. */
  EventPage query(EventQuery query);

  /** The id of the newest event kept, 0 when none (where a live stream without a cursor starts). */
  long lastId();
}
