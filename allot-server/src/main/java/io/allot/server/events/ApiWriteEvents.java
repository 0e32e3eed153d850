package io.allot.server.events;

import io.allot.store.events.EventKind;
import io.allot.store.events.EventWriter;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * What the REST API tells the event history (best-effort, {@link EventWriter}): every write answered 2xx is an
 * {@code api-write}, every write refused for its credentials (401, 403) an {@code api-refused}; reads are not
 * recorded. The actor is {@code api:<client address>}; refusals of the gRPC channels are {@link RefusalEvents}', the
 * job events of a retry or ignore by hand {@code QueueRoutes}' ({@code api:<token name>}); the pool and the task come
 * from the path (a create's task from its {@code Location}). Thread-safe.
 */
public final class ApiWriteEvents {
  private final EventWriter writer;

  /** Writes through {@code writer}. */
  public ApiWriteEvents(EventWriter writer) {
    this.writer = writer;
  }

  /**
   * A request was answered.
   *
   * @param rawPath the path as sent (not decoded)
   * @param remote the client's address, or null
   * @param location the answer's {@code Location} header (a created task), or null
   */
  public void answered(String method, String rawPath, InetAddress remote, int status, String location) {
    if (method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS")) {
      return;
    }
    EventKind kind;
    if (status >= 200 && status < 300) {
      kind = EventKind.API_WRITE;
    } else if (status == 401 || status == 403) {
      kind = EventKind.API_REFUSED;
    } else {
      return;
    }
    String[] seg = rawPath.split("/");
    // "", "api", "v1", "pools", pool, "tasks", name
    String pool = seg.length > 4 && seg[3].equals("pools") && !seg[4].isEmpty() ? decode(seg[4]) : null;
    String subject = seg.length > 6 ? decode(seg[6]) : null;
    if (subject == null && location != null && kind == EventKind.API_WRITE) {
      subject = decode(location.substring(location.lastIndexOf('/') + 1));
    }
    String actor = "api:" + (remote == null ? "unknown" : remote.getHostAddress());
    writer.write(pool, kind, actor, subject, method + " " + rawPath + " -> " + status);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }
}
