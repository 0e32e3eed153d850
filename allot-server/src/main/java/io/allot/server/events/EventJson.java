package io.allot.server.events;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.store.events.EventPage;
import io.allot.store.events.RecordedEvent;
import io.allot.tasks.service.TaskJson;

/**
 * The JSON of the event history (API-CONTRACT): an event is {@code {"id", "time", "pool", "kind", "actor",
 * "subject", "detail"}} with the id as a string cursor, the time as ISO-8601 UTC with milliseconds and the kind in
 * lower-kebab; a page is {@code {"events": [...], "next": cursor|null}}.
 */
public final class EventJson {
  private EventJson() {}

  /** One event. */
  public static ObjectNode event(RecordedEvent e) {
    ObjectNode o = TaskJson.MAPPER.createObjectNode();
    o.put("id", e.cursor());
    o.put("time", e.time().toString());
    o.put("pool", e.pool());
    o.put("kind", e.kind().wire());
    o.put("actor", e.actor());
    o.put("subject", e.subject());
    o.put("detail", e.detail());
    return o;
  }

  /** A page. */
  public static ObjectNode page(EventPage page) {
    ObjectNode o = TaskJson.MAPPER.createObjectNode();
    ArrayNode list = o.putArray("events");
    page.events().forEach(e -> list.add(event(e)));
    o.put("next", page.next() == null ? null : Long.toString(page.next()));
    return o;
  }

  /** One event as a server-sent event: {@code id: <cursor>\ndata: <json on one line>\n\n}. */
  public static String sse(RecordedEvent e) {
    return "id: " + e.cursor() + "\ndata: " + TaskJson.write(event(e)) + "\n\n";
  }
}
