package io.allot.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.server.auth.Authenticator;
import io.allot.server.auth.Role;
import io.allot.store.tasks.TaskLimits;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.service.TaskServiceException;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import io.allot.tasks.service.TaskView;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task management REST API under {@code /api/v1}, mounted on the server's HTTP port next to {@code /metrics}
 * ({@link OpsHttpServer}). JSON in and out; the document {@code /api/v1/openapi.json} describes every route
 * ({@link #ROUTES}; a test checks the two agree).
 *
 * <ul>
 *   <li>{@code POST /api/v1/pools/{pool}/tasks} {@code {"name", "args", "cost"}}: 201 with the task when created,
 *       200 with the task when an identical one exists (same canonical args and cost), 409 when one exists with
 *       other args or cost. {@code args} defaults to {@code {}}, {@code cost} to 1.</li>
 *   <li>{@code GET /api/v1/pools/{pool}/tasks[?status=S][&limit=N][&after=C]}: {@code {"tasks": [...], "next": C}},
 *       live and deleted, by name, at most {@code limit} (1..{@value #MAX_LIMIT}, default {@value #MAX_LIMIT}) after
 *       the task named {@code after}; {@code next} is the cursor of the next page (the last name given), null on the
 *       last page.</li>
 *   <li>{@code GET|PUT|DELETE /api/v1/pools/{pool}/tasks/{name}}: the task; PUT {@code {"args", "cost"}} (cost
 *       optional: kept) answers 200; DELETE answers 202 (deletion converges: OnDeleting, then Deleted).</li>
 *   <li>{@code GET /api/v1/pools}, {@code GET /api/v1/pools/{pool}/members}.</li>
 *   <li>the routes of the {@link RouteGroup}s given to {@link #withRoutes} ({@link ServerRoutes}: the table with
 *       owners, the units list, live routing weights, job queues).</li>
 * </ul>
 *
 * Every request is checked by an {@link Authenticator} ({@code io.allot.server.auth}): writes (POST, PUT, DELETE)
 * need {@code Authorization: Bearer <token>} of a {@code write} token when the handler has tokens (401 without a known
 * token, 403 for a {@code read} token); without tokens they are accepted only from a loopback address (403
 * {@link #LOOPBACK_ONLY} otherwise) unless writes were opened ({@code -api-open-writes}); reads are open unless some
 * token has role {@code read} (then they need a token too; the OpenAPI document stays open). Errors are
 * {@code {"error": "<field>: <what is wrong>"}}: 400 bad input or malformed JSON, 401, 403, 404 unknown pool, task or
 * path, 405 wrong method (with {@code Allow}), 409, 413 (args over {@value TaskLimits#MAX_ARGS_BYTES} bytes, or a body
 * over {@value #MAX_BODY_BYTES} bytes), 503 store unreachable (the body never names the store: its URI and user go to
 * the log only). A refused request changes nothing.
 */
public final class ApiHandler {
  private static final Logger log = LoggerFactory.getLogger(ApiHandler.class);

  /** The path every route starts with. */
  public static final String PREFIX = "/api/v1";
  /** The largest request body read; more is a 413. */
  public static final int MAX_BODY_BYTES = 1024 * 1024;
  /** How much of an oversized body is read and dropped before the 413, so the client sees the answer. */
  static final long DRAIN_BYTES = 16L * 1024 * 1024;
  /** The most tasks one page of a list has (and the default). */
  public static final int MAX_LIMIT = 1000;
  /** The 403 of a write without a token from an address that is not loopback. */
  public static final String LOOPBACK_ONLY = Authenticator.LOOPBACK_ONLY;
  /** The 503 body: never the store's URI, user or address. */
  static final String UNAVAILABLE = TaskServiceException.UNAVAILABLE_TO_CLIENTS;

  /** Every route served, as {@code METHOD path-template}, as the OpenAPI document lists them. */
  public static final Set<String> ROUTES = Set.of(
      "GET /api/v1/openapi.json",
      "GET /api/v1/pools",
      "GET /api/v1/pools/{pool}/members",
      "GET /api/v1/pools/{pool}/tasks",
      "POST /api/v1/pools/{pool}/tasks",
      "GET /api/v1/pools/{pool}/tasks/{name}",
      "PUT /api/v1/pools/{pool}/tasks/{name}",
      "DELETE /api/v1/pools/{pool}/tasks/{name}",
      "GET /api/v1/events",
      "GET /api/v1/events/stream",
      // route groups (RouteGroup), served when the handler has them (withRoutes)
      "GET /api/v1/pools/{pool}/table",
      "GET /api/v1/pools/{pool}/units",
      "POST /api/v1/pools/{pool}/units",
      "DELETE /api/v1/pools/{pool}/units/{unit}",
      "GET /api/v1/pools/{pool}/weights",
      "PUT /api/v1/pools/{pool}/weights",
      "GET /api/v1/queues",
      "GET /api/v1/queues/{queue}",
      "POST /api/v1/queues/{queue}/jobs/{key}/retry",
      "POST /api/v1/queues/{queue}/jobs/{key}/ignore");

  private static final String OPENAPI_RESOURCE = "openapi.json";

  private final TaskService service;
  private final Authenticator auth;
  private final byte[] openApi;
  /** Records the writes in the event history. */
  private final io.allot.server.events.ApiWriteEvents writeEvents;
  /** The live event streams, made on the first one and shared by this handler's copies ({@link #withRoutes}). */
  private final StreamsHolder eventStreams;
  /** Asked in order for the paths the routes above do not serve. */
  private final List<RouteGroup> groups;

  /**
   * @param service  the operations
   * @param apiToken the bearer token writes need; null or empty: writes only from loopback
   */
  public ApiHandler(TaskService service, String apiToken) {
    this(service, apiToken, false);
  }

  /**
   * @param openWrites without a token, accept writes from every address (else from loopback only); ignored with a
   *                   token
   */
  public ApiHandler(TaskService service, String apiToken, boolean openWrites) {
    this(service, apiToken, openWrites, a -> a != null && a.isLoopbackAddress());
  }

  /** @param loopback whether a client's address is loopback (tests) */
  ApiHandler(TaskService service, String apiToken, boolean openWrites, Predicate<InetAddress> loopback) {
    this(Authenticator.builder().token("api-token", Role.WRITE, apiToken).openWrites(openWrites)
        .loopback(loopback).build(), service);
  }

  private ApiHandler(Authenticator auth, TaskService service) {
    this.service = java.util.Objects.requireNonNull(service, "service");
    this.auth = java.util.Objects.requireNonNull(auth, "auth");
    this.openApi = openApiDocument();
    this.writeEvents = new io.allot.server.events.ApiWriteEvents(
        io.allot.store.events.EventWriter.of(service.store()));
    this.eventStreams = new StreamsHolder(service);
    this.groups = List.of();
  }

  /** The event streams, made on first use; guarded by this holder. */
  private static final class StreamsHolder {
    private final TaskService service;
    private io.allot.server.events.EventStreams streams; // guarded by this

    StreamsHolder(TaskService service) {
      this.service = service;
    }

    synchronized io.allot.server.events.EventStreams get() {
      if (streams == null) {
        streams = new io.allot.server.events.EventStreams(service.store().events());
      }
      return streams;
    }

    synchronized void close() {
      if (streams != null) {
        streams.close();
      }
    }
  }

  /** The server-sent event streams of the event history ({@code /api/v1/events/stream}), started on first use. */
  public io.allot.server.events.EventStreams eventStreams() {
    return eventStreams.get();
  }

  /** Ends the event streams, if any were opened (the server is stopping). */
  public void closeEventStreams() {
    eventStreams.close();
  }

  private ApiHandler(ApiHandler base, List<RouteGroup> groups) {
    this.service = base.service;
    this.auth = base.auth;
    this.openApi = base.openApi;
    this.writeEvents = base.writeEvents;
    this.eventStreams = base.eventStreams;
    this.groups = groups;
  }

  /** This handler serving also the routes of {@code more} (asked in order, after this handler's own routes). */
  public ApiHandler withRoutes(List<RouteGroup> more) {
    List<RouteGroup> all = new ArrayList<>(groups);
    all.addAll(more);
    return new ApiHandler(this, List.copyOf(all));
  }

  /**
   * The API checked by {@code auth}.
   *
   * @param service the operations
   * @param auth    decides who may read and write (tokens, roles, the loopback rule); counts the refusals
   */
  public static ApiHandler checkedBy(TaskService service, Authenticator auth) {
    return new ApiHandler(auth, service);
  }

  /** One line on who may read and write, for the start-up log. */
  public String describeWrites() {
    return auth.describe();
  }

  /** One line on who may write: with a token, without one, or without one and opened. */
  public static String describeWrites(boolean hasToken, boolean openWrites) {
    if (hasToken) {
      return "writes need the bearer token";
    }
    return openWrites ? "writes are OPEN to anyone who reaches the port (-api-open-writes; set -api-token to close them)"
        : "no API token: writes only from loopback (set -api-token, or -api-open-writes to accept them from anywhere)";
  }

  /**
   * A request as the API sees it.
   *
   * @param rawPath       the path, not decoded
   * @param rawQuery      the query, not decoded, or null
   * @param authorization the {@code Authorization} header, or null
   * @param remote        the client's address (null if unknown: not loopback)
   */
  record Call(String method, String rawPath, String rawQuery, String authorization, InetAddress remote,
      BodyReader.Body body) {}

  /** The OpenAPI 3 document served at {@code /api/v1/openapi.json} (a resource next to this class). */
  public static byte[] openApiDocument() {
    try (InputStream in = ApiHandler.class.getResourceAsStream(OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("resource " + OPENAPI_RESOURCE + " is missing next to " + ApiHandler.class);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The answer to {@code ex}, a write recorded in the event history; never throws. */
  Reply handle(Call ex) {
    Reply r = answer(ex);
    String location = null;
    for (String[] h : r.headers()) {
      if (h[0].equals("Location")) {
        location = h[1];
      }
    }
    writeEvents.answered(ex.method(), ex.rawPath(), ex.remote(), r.status(), location);
    return r;
  }

  private Reply answer(Call ex) {
    try {
      return route(ex);
    } catch (TaskServiceException e) {
      if (e.kind() == ErrorKind.UNAVAILABLE) {
        log.warn("{} {}: {}", ex.method(), ex.rawPath(), e.getMessage());
        return Reply.error(503, UNAVAILABLE);
      }
      return Reply.error(httpStatus(e.kind()), e.getMessage());
    } catch (Forbidden e) { // a token of the wrong role, or no token off loopback
      return Reply.error(403, e.getMessage());
    } catch (MethodNotAllowed e) {
      return Reply.error(405, e.getMessage()).header("Allow", e.allowed);
    } catch (UnsupportedOperationException e) {
      return Reply.error(501, "not supported by this store: " + e.getMessage());
    } catch (RuntimeException e) {
      log.warn("{} {} failed", ex.method(), ex.rawPath(), e);
      return Reply.error(500, "internal error (the server's log has it)");
    }
  }

  private Reply route(Call ex) {
    String method = ex.method();
    String raw = ex.rawPath();
    if (!raw.equals(PREFIX) && !raw.startsWith(PREFIX + "/")) {
      return Reply.error(404, "path: no such path '" + raw + "'");
    }
    List<String> seg = new ArrayList<>();
    for (String s : raw.substring(PREFIX.length()).split("/", -1)) {
      seg.add(URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8));
    }
    seg.remove(0); // before the first '/'
    int n = seg.size();
    if (n == 1 && seg.get(0).equals("openapi.json")) {
      allow(method, "GET");
      return new Reply(200, "application/json", openApi, List.of());
    }
    if (n == 1 && seg.get(0).equals("events")) {
      allow(method, "GET");
      authorize(ex, Role.READ);
      return Reply.json(200, new io.allot.server.events.EventRoutes(service.store().events()).list(ex.rawQuery()));
    }
    if (n == 1 && seg.get(0).equals("pools")) {
      allow(method, "GET");
      authorize(ex, Role.READ);
      return Reply.json(200, TaskJson.pools(service.pools()));
    }
    if (n >= 3 && seg.get(0).equals("pools")) {
      String pool = seg.get(1);
      if (n == 3 && seg.get(2).equals("members")) {
        allow(method, "GET");
        authorize(ex, Role.READ);
        return Reply.json(200, TaskJson.members(pool, service.members(pool)));
      }
      if (n == 3 && seg.get(2).equals("tasks")) {
        allow(method, "GET", "POST");
        if (method.equals("GET")) {
          authorize(ex, Role.READ);
          return Reply.json(200, TaskPages.page(service, pool, query(ex, "status"), query(ex, "limit"),
              query(ex, "after")));
        }
        authorize(ex, Role.WRITE);
        ObjectNode body = body(ex, Set.of("name", "args", "cost"));
        JsonNode name = body.get("name");
        if (name == null || !name.isTextual()) {
          throw badInput("name: must be a string but was " + TaskJson.kind(name));
        }
        TaskService.Written w = service.create(pool, name.asText(), args(body, true), cost(body, 1));
        String location = PREFIX + "/pools/" + encode(pool) + "/tasks/" + encode(w.task().name());
        return Reply.json(w.created() ? 201 : 200, TaskJson.task(w.task())).header("Location", location);
      }
      if (n == 4 && seg.get(2).equals("tasks")) {
        String name = seg.get(3);
        allow(method, "GET", "PUT", "DELETE");
        switch (method) {
          case "GET":
            authorize(ex, Role.READ);
            return Reply.json(200, TaskJson.task(service.get(pool, name)));
          case "PUT": {
            authorize(ex, Role.WRITE);
            ObjectNode body = body(ex, Set.of("name", "args", "cost"));
            JsonNode bodyName = body.get("name");
            if (bodyName != null && !(bodyName.isTextual() && bodyName.asText().equals(name))) {
              throw badInput("name: the body names " + bodyName + " but the path names '" + name
                  + "'; leave it out or make them agree");
            }
            Integer cost = body.has("cost") ? cost(body, 0) : null;
            TaskView v = service.update(pool, name, args(body, false), cost);
            return Reply.json(200, TaskJson.task(v));
          }
          default: {
            authorize(ex, Role.WRITE);
            return Reply.json(202, TaskJson.task(service.delete(pool, name)));
          }
        }
      }
    }
    if (method.equals("GET") && !groups.isEmpty()) {
      authorize(ex, Role.READ); // the groups' reads; their writes call authorize(Call)
    }
    for (RouteGroup g : groups) {
      Reply r = g.route(ex, seg, this);
      if (r != null) {
        return r;
      }
    }
    return Reply.error(404, "path: no such path '" + raw + "'; see " + PREFIX + "/openapi.json");
  }

  static void allow(String method, String... allowed) {
    for (String a : allowed) {
      if (a.equals(method)) {
        return;
      }
    }
    throw new MethodNotAllowed(method, String.join(", ", allowed));
  }

  /** 405, with the methods the path takes. */
  private static final class MethodNotAllowed extends RuntimeException {
    private final String allowed;

    MethodNotAllowed(String method, String allowed) {
      super("method: " + method + " is not allowed here; use " + allowed, null, false, false);
      this.allowed = allowed;
    }
  }

  /** 403 from {@link #authorize}: a token whose role does not allow it, or no token and not loopback. */
  private static final class Forbidden extends RuntimeException {
    Forbidden(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Throws the 401 or 403 of a write {@link #auth} refuses: the route groups' writes (POST, PUT, DELETE); returns the
   * decision allowing it (its token's name, if any, names the writer).
   */
  Authenticator.Decision authorize(Call ex) {
    return authorize(ex, Role.WRITE);
  }

  /**
   * The 401 or 403 of a read ({@code /api/v1/events/stream}, served outside {@link #handle}) that {@link #auth}
   * refuses, or null when it may read.
   */
  Reply refusedRead(String authorization, InetAddress remote) {
    Authenticator.Decision d = auth.check(Authenticator.Channel.REST, Role.READ, authorization, remote);
    return d.allowed() ? null : Reply.error(d.reason().unauthenticated() ? 401 : 403, d.message());
  }

  /** Throws the 401 or 403 of a request {@link #auth} refuses to let do what {@code needed} asks. */
  private Authenticator.Decision authorize(Call ex, Role needed) {
    Authenticator.Decision d = auth.check(Authenticator.Channel.REST, needed, ex.authorization(), ex.remote());
    if (d.allowed()) {
      return d;
    }
    if (d.reason().unauthenticated()) {
      throw new TaskServiceException(ErrorKind.UNAUTHENTICATED, d.message());
    }
    throw new Forbidden(d.message());
  }

  static ObjectNode body(Call ex, Set<String> fields) {
    if (ex.body().tooLarge()) {
      throw tooLarge();
    }
    byte[] bytes = ex.body().bytes();
    if (bytes.length == 0) {
      throw badInput("body: must be a JSON object but was missing");
    }
    JsonNode node;
    try {
      node = TaskJson.MAPPER.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw badInput("body: malformed JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (node == null || !node.isObject()) {
      throw badInput("body: must be a JSON object but was " + TaskJson.kind(node));
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!fields.contains(f)) {
        throw badInput("body: unknown field '" + f + "'; the fields are " + String.join(", ",
            fields.stream().sorted().toList()));
      }
    }
    return (ObjectNode) node;
  }

  static TaskServiceException badInput(String message) {
    return new TaskServiceException(ErrorKind.BAD_INPUT, message);
  }

  /** The HTTP status that answers a refused request of {@code kind}. */
  static int httpStatus(ErrorKind kind) {
    return switch (kind) {
      case BAD_INPUT -> 400;
      case UNAUTHENTICATED -> 401;
      case NOT_FOUND -> 404;
      case CONFLICT -> 409;
      case TOO_LARGE -> 413;
      case UNAVAILABLE -> 503;
    };
  }

  private static TaskServiceException tooLarge() {
    return new TaskServiceException(ErrorKind.TOO_LARGE, "args: the request body is over " + MAX_BODY_BYTES
        + " bytes; args may have at most " + TaskLimits.MAX_ARGS_BYTES + " bytes");
  }

  /** The args of a body as JSON text: {@code {}} when absent and {@code optional}. */
  private static String args(ObjectNode body, boolean optional) {
    JsonNode a = body.get("args");
    if (a == null) {
      if (optional) {
        return "{}";
      }
      throw badInput("args: missing; give the new arguments as a JSON object");
    }
    return TaskJson.canonicalArgs(a);
  }

  private static int cost(ObjectNode body, int dflt) {
    JsonNode c = body.get("cost");
    if (c == null) {
      return dflt;
    }
    if (!c.isIntegralNumber() || !c.canConvertToInt()) {
      throw badInput("cost: must be an integer from 1 to " + TaskLimits.MAX_COST + " but was "
          + c);
    }
    return c.intValue();
  }

  static String query(Call ex, String param) {
    String q = ex.rawQuery();
    if (q == null) {
      return null;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      if (k.equals(param)) {
        return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** A response. */
  record Reply(int status, String type, byte[] body, List<String[]> headers) {
    static Reply json(int status, JsonNode node) {
      return new Reply(status, "application/json", TaskJson.write(node).getBytes(StandardCharsets.UTF_8), List.of());
    }

    static Reply error(int status, String message) {
      Reply r = json(status, TaskJson.error(message));
      return status == 401 ? r.header("WWW-Authenticate", "Bearer realm=\"allot\"") : r;
    }

    Reply header(String name, String value) {
      List<String[]> h = new ArrayList<>(headers);
      h.add(new String[] {name, value});
      return new Reply(status, type, body, List.copyOf(h));
    }
  }
}
