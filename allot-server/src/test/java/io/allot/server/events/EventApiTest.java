package io.allot.server.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.allot.server.http.ApiHandler;
import io.allot.server.http.OpsHttpServer;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventRetention;
import io.allot.store.events.NewEvent;
import io.allot.store.events.RecordedEvent;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code GET /api/v1/events} and {@code /api/v1/events/stream} on a server over a memory store. */
class EventApiTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private MemoryStore store;
  private ApiHandler api;
  private OpsHttpServer server;
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void start() {
    store = new MemoryStore();
    api = new ApiHandler(TaskService.forPools(store, "table", List.of("p")), null);
    server = new OpsHttpServer(0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), "test", () -> true, api);
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
    server.close();
    store.close();
  }

  private RecordedEvent append(String pool, EventKind kind, String subject, String detail) {
    return store.events().append(new NewEvent(pool, kind, "tester", subject, detail), EventRetention.DEFAULT);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode json(String path, int status) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    return TaskJson.MAPPER.readTree(r.body());
  }

  @Test
  void aPageOfEventsIsReadAfterACursorFilteredByPoolAndKind() throws Exception {
    RecordedEvent up = append("p", EventKind.MEMBER_UP, "m1", "lease began");
    append("q", EventKind.MEMBER_UP, "m2", "");
    RecordedEvent down = append("p", EventKind.MEMBER_DOWN, "m1", "lease ended");
    RecordedEvent moved = append("p", EventKind.TABLE_PUBLISHED, null, "epoch 2: 3 units moved");
    JsonNode page = json("/api/v1/events?pool=p&limit=2", 200);
    assertThat(page.get("events")).hasSize(2);
    JsonNode first = page.get("events").get(0);
    assertThat(first.get("id").asText()).isEqualTo(up.cursor());
    assertThat(first.get("time").asText()).isEqualTo(up.time().toString());
    assertThat(first.get("pool").asText()).isEqualTo("p");
    assertThat(first.get("kind").asText()).isEqualTo("member-up");
    assertThat(first.get("actor").asText()).isEqualTo("tester");
    assertThat(first.get("subject").asText()).isEqualTo("m1");
    assertThat(first.get("detail").asText()).isEqualTo("lease began");
    assertThat(page.get("next").asText()).isEqualTo(down.cursor());
    JsonNode rest = json("/api/v1/events?pool=p&limit=2&after=" + page.get("next").asText(), 200);
    assertThat(rest.get("events")).hasSize(1);
    assertThat(rest.get("events").get(0).get("subject").isNull()).isTrue();
    assertThat(rest.get("next").isNull()).isTrue();
    JsonNode kinds = json("/api/v1/events?kind=member-down&kind=table-published", 200);
    assertThat(kinds.get("events")).extracting(e -> e.get("id").asText()).containsExactly(down.cursor(),
        moved.cursor());
    assertThat(json("/api/v1/events?kind=member-down,table-published", 200)).isEqualTo(kinds);
    assertThat(json("/api/v1/events", 200).get("events")).hasSize(4);
  }

  @Test
  void badParametersAreRefusedNamingThem() throws Exception {
    assertThat(json("/api/v1/events?kind=nope", 400).get("error").asText()).startsWith("kind:");
    assertThat(json("/api/v1/events?limit=0", 400).get("error").asText()).startsWith("limit:");
    assertThat(json("/api/v1/events?limit=x", 400).get("error").asText()).startsWith("limit:");
    assertThat(json("/api/v1/events?after=-3", 400).get("error").asText()).startsWith("after:");
    assertThat(json("/api/v1/events/stream?kind=nope", 400).get("error").asText()).startsWith("kind:");
  }

  /** A stream read on a thread of the test: its lines, as they come. */
  private Queue<String> stream(String path, String lastEventId) {
    Queue<String> lines = new ConcurrentLinkedQueue<>();
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
    if (lastEventId != null) {
      b.header("Last-Event-ID", lastEventId);
    }
    CompletableFuture<HttpResponse<Stream<String>>> f = client.sendAsync(b.build(),
        HttpResponse.BodyHandlers.ofLines());
    Thread reader = new Thread(() -> {
      try {
        HttpResponse<Stream<String>> r = f.get();
        lines.add("status " + r.statusCode());
        r.body().forEach(lines::add);
      } catch (Exception e) {
        lines.add("ended " + e);
      }
    });
    reader.setDaemon(true);
    reader.start();
    toClose.add(() -> f.thenAccept(r -> r.body().close()));
    return lines;
  }

  @Test
  void anAppendedEventShowsUpOnTheStreamsThatAskForIt() {
    append("p", EventKind.MEMBER_UP, "old", "before the stream");
    Queue<String> all = stream("/api/v1/events/stream", null);
    Queue<String> downs = stream("/api/v1/events/stream?pool=p&kind=member-down", null);
    await().atMost(PATIENCE).until(() -> api.eventStreams().size() == 2);
    RecordedEvent up = append("p", EventKind.MEMBER_UP, "m1", "lease began");
    RecordedEvent down = append("p", EventKind.MEMBER_DOWN, "m1", "lease ended");
    await().atMost(PATIENCE).until(() -> all.contains("id: " + down.cursor()));
    assertThat(all).contains("status 200", ": keepalive", "id: " + up.cursor(),
        "data: " + TaskJson.write(EventJson.event(up))).noneMatch(l -> l.contains("before the stream"));
    await().atMost(PATIENCE).until(() -> downs.contains("id: " + down.cursor()));
    assertThat(downs).doesNotContain("id: " + up.cursor());
  }

  @Test
  void aReconnectingClientResumesAfterItsLastEventId() {
    RecordedEvent a = append("p", EventKind.TASK_STATUS, "t", "Created -> Processing");
    RecordedEvent b = append("p", EventKind.TASK_FAILED, "t", "boom");
    Queue<String> resumed = stream("/api/v1/events/stream?after=0", a.cursor());
    await().atMost(PATIENCE).until(() -> resumed.contains("id: " + b.cursor()));
    assertThat(resumed).doesNotContain("id: " + a.cursor());
    Queue<String> fromStart = stream("/api/v1/events/stream?after=0", null);
    await().atMost(PATIENCE).until(() -> fromStart.contains("id: " + b.cursor()));
    assertThat(fromStart).contains("id: " + a.cursor());
  }

  /** A raw client that sends a stream request and never reads. */
  private Socket neverReads(String path) throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(4096);
    s.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()), 5000);
    OutputStream out = s.getOutputStream();
    out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    toClose.add(s);
    return s;
  }

  @Test
  void fortyStreamsAndAClientThatNeverReadsHoldNoThreadAndHealthzStillAnswers() throws Exception {
    neverReads("/api/v1/events/stream?after=0");
    List<Queue<String>> streams = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      streams.add(stream("/api/v1/events/stream", null));
    }
    await().atMost(PATIENCE).until(() -> api.eventStreams().size() == 41);
    RecordedEvent last = null;
    for (int i = 0; i < 300; i++) {
      last = append("p" + (i % 3), EventKind.API_WRITE, "w" + i, "x".repeat(1900));
    }
    String lastId = "id: " + last.cursor();
    await().atMost(PATIENCE).until(() -> streams.stream().allMatch(s -> s.contains(lastId)));
    assertThat(get("/healthz").statusCode()).as("more streams than the server has threads (%d)", 32).isEqualTo(200);
    assertThat(get("/api/v1/events?limit=1").statusCode()).isEqualTo(200);
  }

  @Test
  void streamsBeyondTheCapAreRefusedWith503() throws Exception {
    for (int i = 0; i < EventStreams.MAX_STREAMS; i++) {
      neverReads("/api/v1/events/stream");
    }
    await().atMost(PATIENCE).until(() -> api.eventStreams().size() == EventStreams.MAX_STREAMS);
    HttpResponse<String> r = get("/api/v1/events/stream");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(TaskJson.MAPPER.readTree(r.body()).get("error").asText()).startsWith("stream:");
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
  }
}
