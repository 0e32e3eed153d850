package io.allot.server.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.http.ApiHandler;
import io.allot.server.http.OpsHttpServer;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.RecordedEvent;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The REST API's writes, and writes refused for their credentials, in the event history; reads are not. */
class ApiWriteEventsTest {
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private int call(OpsHttpServer server, String method, String path, String body, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(10))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  @Test
  void writesAndRefusedWritesAreRecordedWithTheClientsAddress() throws Exception {
    try (MemoryStore store = new MemoryStore();
        OpsHttpServer server = new OpsHttpServer(0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), "test",
            () -> true, new ApiHandler(TaskService.forPools(store, "table", List.of("p")), "tok"))) {
      assertThat(call(server, "POST", "/api/v1/pools/p/tasks", "{\"name\":\"t1\"}", "tok")).isEqualTo(201);
      assertThat(call(server, "GET", "/api/v1/pools/p/tasks/t1", null, null)).isEqualTo(200);
      assertThat(call(server, "DELETE", "/api/v1/pools/p/tasks/t1", null, "wrong")).isEqualTo(401);
      assertThat(call(server, "PUT", "/api/v1/pools/p/tasks/nope", "{\"args\":{}}", "tok")).isEqualTo(404);
      List<RecordedEvent> events = store.events().query(EventQuery.all()).events();
      assertThat(events).extracting(RecordedEvent::kind).containsExactly(EventKind.API_WRITE, EventKind.API_REFUSED);
      assertThat(events).allMatch(e -> e.actor().equals("api:127.0.0.1") && "p".equals(e.pool())
          && "t1".equals(e.subject()));
      assertThat(events.get(0).detail()).isEqualTo("POST /api/v1/pools/p/tasks -> 201");
      assertThat(events.get(1).detail()).isEqualTo("DELETE /api/v1/pools/p/tasks/t1 -> 401");
    }
  }
}
