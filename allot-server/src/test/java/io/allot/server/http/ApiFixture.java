package io.allot.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** A server with the API on a free port, a memory store on a hand-driven clock, and an HTTP client. */
final class ApiFixture implements AutoCloseable {
  static final String TABLE = "sys-matching-table";
  static final String TOKEN = "s3cret";
  /** The units list of the pools without tasks. */
  static final String UNITS = "sys-channels";

  final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  /** The store the server reads (null when the test gave its own handler over a store it closes itself). */
  final MemoryStore store;
  final OpsHttpServer server;
  final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  ApiFixture(String token) {
    this(token, false, a -> a.isLoopbackAddress());
  }

  /** With open writes or not, and {@code loopback} deciding which client addresses are loopback. */
  ApiFixture(String token, boolean openWrites, java.util.function.Predicate<java.net.InetAddress> loopback) {
    store = new MemoryStore(nanos::get);
    TaskService tasks = TaskService.forPools(store, TABLE, List.of("p", "q"));
    server = start(new ApiHandler(tasks, token, openWrites, loopback)
        .withRoutes(ServerRoutes.of(store, tasks, TABLE, UNITS)));
  }

  /** A server with {@code api}; {@code store} (may be null) is closed with the fixture. */
  ApiFixture(ApiHandler api, MemoryStore store) {
    this.store = store;
    server = start(api);
  }

  private static OpsHttpServer start(ApiHandler api) {
    return new OpsHttpServer(0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), "test", () -> true, api);
  }

  String base() {
    return "http://127.0.0.1:" + server.port();
  }

  /** A response: status, body, parsed body (null if not JSON), headers. */
  record Res(int status, String body, JsonNode json, HttpResponse<String> raw) {
    String error() {
      return json == null || json.get("error") == null ? null : json.get("error").asText();
    }
  }

  Res call(String method, String path, String body, String token) {
    return callAt(base(), method, path, body, token);
  }

  /** A call to {@code base} (e.g. this server on another of the machine's addresses). */
  Res callAt(String base, String method, String path, String body, String token) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(5))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      try {
        json = TaskJson.MAPPER.readTree(r.body());
      } catch (IOException notJson) {
        // left null
      }
      return new Res(r.statusCode(), r.body(), json, r);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  Res get(String path) {
    return call("GET", path, null, null);
  }

  Res write(String method, String path, String body) {
    return call(method, path, body, TOKEN);
  }

  @Override
  public void close() {
    server.close();
    if (store != null) {
      store.close();
    }
  }
}
