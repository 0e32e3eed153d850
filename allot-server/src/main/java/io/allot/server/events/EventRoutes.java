package io.allot.server.events;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.Events;
import io.allot.store.events.RecordedEvent;
import io.allot.tasks.service.TaskServiceException;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * {@code GET /api/v1/events?pool=P&kind=K&after=CURSOR&limit=N}: a page of the event history (every parameter
 * optional; {@code kind} may repeat or be comma separated; {@code limit} 1..1000, default 100), oldest first, after
 * the cursor (exclusive). Bad input is a {@link TaskServiceException} of kind BAD_INPUT naming the parameter.
 */
public final class EventRoutes {
  private final Events events;

  /** The routes over {@code events}. */
  public EventRoutes(Events events) {
    this.events = events;
  }

  /** The page a {@code GET /api/v1/events} with the raw (not decoded) query {@code rawQuery} asks for. */
  public ObjectNode list(String rawQuery) {
    return EventJson.page(events.query(query(rawQuery, null)));
  }

  /**
   * The query of a raw query string: {@code pool}, {@code kind}, {@code after} (or {@code lastEventId}, the
   * {@code Last-Event-ID} header, which wins), {@code limit}.
   *
   * @throws TaskServiceException BAD_INPUT naming the parameter
   */
  static EventQuery query(String rawQuery, String lastEventId) {
    try {
      String pool = null;
      Set<EventKind> kinds = EnumSet.noneOf(EventKind.class);
      long after = 0;
      int limit = EventQuery.DEFAULT_LIMIT;
      for (String[] p : params(rawQuery)) {
        switch (p[0]) {
          case "pool" -> pool = p[1].isEmpty() ? null : p[1];
          case "kind" -> {
            for (String k : p[1].split(",")) {
              if (!k.isBlank()) {
                kinds.add(EventKind.fromWire(k.trim()));
              }
            }
          }
          case "after" -> after = p[1].isEmpty() ? 0 : RecordedEvent.parseCursor("after", p[1]);
          case "limit" -> limit = parseLimit(p[1]);
          default -> { } // other parameters are ignored, as browsers add their own
        }
      }
      if (lastEventId != null && !lastEventId.isBlank()) {
        after = RecordedEvent.parseCursor("Last-Event-ID", lastEventId);
      }
      return new EventQuery(pool, kinds, after, limit);
    } catch (IllegalArgumentException e) {
      throw new TaskServiceException(ErrorKind.BAD_INPUT, e.getMessage());
    }
  }

  /** Whether the raw query names a cursor ({@code after}). */
  static boolean hasAfter(String rawQuery) {
    return params(rawQuery).stream().anyMatch(p -> p[0].equals("after") && !p[1].isEmpty());
  }

  private static int parseLimit(String s) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("limit: must be an integer in 1.." + EventQuery.MAX_LIMIT + " but was '" + s
          + "'");
    }
  }

  private static List<String[]> params(String rawQuery) {
    List<String[]> out = new ArrayList<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return out;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      out.add(new String[] {URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8)});
    }
    return out;
  }
}
