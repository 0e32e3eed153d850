package io.allot.store.events;

import java.util.List;
import java.util.OptionalLong;

/**
 * One page of a {@link EventQuery query}: its events oldest first, and the cursor to read the next page after, or
 * null when this page was not full (nothing more matched when it was read; poll again with the last event's id).
 *
 * @param events oldest first
 * @param next the cursor for the next page, or null
 */
public record EventPage(List<RecordedEvent> events, Long next) {
  /** Copies the list. */
  public EventPage {
    events = List.copyOf(events);
  }

  /** The page of {@code events} read for a query with {@code limit}: {@code next} is set when the page is full. */
  public static EventPage of(List<RecordedEvent> events, int limit) {
    return new EventPage(events, events.size() >= limit ? events.get(events.size() - 1).id() : null);
  }

  /** The id of the last event, if any. */
  public OptionalLong lastId() {
    return events.isEmpty() ? OptionalLong.empty() : OptionalLong.of(events.get(events.size() - 1).id());
  }
}
