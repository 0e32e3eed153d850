package io.allot.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.allot.server.http.ApiFixture.Res;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskService;
import io.allot.testkit.FaultyStore;
import io.allot.testkit.PostgresServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The management API's safety rules (issue 18, item 6): each test was seen failing before its fix. */
class ApiHardeningTest {
  static final String TASKS = "/api/v1/pools/p/tasks";

  /** Half-sent requests (headers never finished) must not hold the threads that answer /healthz and /metrics. */
  @Test
  void slowClientsDoNotStopHealthAndMetrics() throws Exception {
    try (ApiFixture f = new ApiFixture(ApiFixture.TOKEN)) {
      List<Socket> slow = new ArrayList<>();
      try {
        for (int i = 0; i < 50; i++) {
          Socket s = new Socket("127.0.0.1", f.server.port());
          OutputStream out = s.getOutputStream();
          out.write("GET /api/v1/pools HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
          slow.add(s);
        }
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
            .until(() -> f.get("/healthz").status() == 200 && f.get("/metrics").status() == 200);
        assertThat(f.get("/api/v1/pools").status()).isEqualTo(200);
      } finally {
        for (Socket s : slow) {
          s.close();
        }
      }
    }
  }

  /** The machine's first non-loopback IPv4 address, if it has one. */
  static Optional<InetAddress> nonLoopback() throws SocketException {
    return NetworkInterface.networkInterfaces().filter(n -> {
      try {
        return n.isUp() && !n.isLoopback();
      } catch (SocketException e) {
        return false;
      }
    }).flatMap(NetworkInterface::inetAddresses)
        .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()).findFirst();
  }

  @Test
  void withoutATokenWritesFromANonLoopbackAddressAreRefused() throws Exception {
    Optional<InetAddress> addr = nonLoopback();
    assumeTrue(addr.isPresent(), "no non-loopback IPv4 address on this machine");
    try (ApiFixture f = new ApiFixture(null)) {
      String base = "http://" + addr.get().getHostAddress() + ":" + f.server.port();
      Res r = f.callAt(base, "POST", TASKS, "{\"name\":\"far\"}", null);
      assertThat(r.status()).as(r.body()).isEqualTo(403);
      assertThat(r.error()).contains("authorization:").contains("loopback").contains("-api-token");
      assertThat(f.callAt(base, "GET", TASKS, null, null).status()).as("reads stay open").isEqualTo(200);
      assertThat(f.store.taskSpecs("p").get("far")).as("nothing written").isEmpty();
      assertThat(f.call("POST", TASKS, "{\"name\":\"near\"}", null).status()).as("loopback may write").isEqualTo(201);
    }
  }

  @Test
  void withoutATokenWritesFromAnAddressTheCheckSaysIsNotLoopbackAreRefused() {
    try (ApiFixture f = new ApiFixture(null, false, a -> false)) {
      Res r = f.call("DELETE", TASKS + "/x", null, null);
      assertThat(r.status()).as(r.body()).isEqualTo(403);
      assertThat(r.error()).isEqualTo(ApiHandler.LOOPBACK_ONLY);
    }
    try (ApiFixture open = new ApiFixture(null, true, a -> false)) {
      assertThat(open.call("POST", TASKS, "{\"name\":\"x\"}", null).status()).as("-api-open-writes").isEqualTo(201);
    }
  }

  @Test
  void theWritePolicyIsSaidInOneLine() {
    MemoryStore store = new MemoryStore();
    TaskService s = TaskService.forPools(store, ApiFixture.TABLE, List.of("p"));
    assertThat(new ApiHandler(s, null).describeWrites()).contains("writes only from loopback")
        .contains("-api-token").contains("-api-open-writes");
    assertThat(new ApiHandler(s, "t").describeWrites()).isEqualTo("writes need the bearer token");
    assertThat(new ApiHandler(s, null, true).describeWrites()).contains("OPEN");
    store.close();
  }

  @Test
  void listsArePagedWithACursor() {
    try (ApiFixture f = new ApiFixture(ApiFixture.TOKEN)) {
      for (String n : List.of("a1", "a2", "a3", "a4", "a5")) {
        f.write("POST", TASKS, "{\"name\":\"" + n + "\"}");
      }
      List<String> seen = new ArrayList<>();
      String after = null;
      int pages = 0;
      do {
        Res r = f.get(TASKS + "?limit=2" + (after == null ? "" : "&after=" + after));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        r.json().get("tasks").forEach(t -> seen.add(t.get("name").asText()));
        JsonNode next = r.json().get("next");
        assertThat(next).as(r.body()).isNotNull();
        after = next.isNull() ? null : next.asText();
        pages++;
      } while (after != null && pages < 10);
      assertThat(seen).containsExactly("a1", "a2", "a3", "a4", "a5");
      assertThat(pages).isEqualTo(3);
      assertThat(f.get(TASKS + "?limit=2&status=Pending&after=a4").json().get("tasks").findValuesAsText("name"))
          .containsExactly("a5");
      assertThat(f.get(TASKS).json().get("next").isNull()).isTrue();
      Object[][] bad = {
        {"?limit=0", "limit: must be an integer from 1 to 1000 but was '0'"},
        {"?limit=1001", "limit: must be an integer from 1 to 1000 but was '1001'"},
        {"?limit=99999999999999999999", "limit: must be an integer from 1 to 1000"},
        {"?limit=x", "limit: must be an integer from 1 to 1000 but was 'x'"},
        {"?after=bad%20name", "after: task name 'bad name'"},
      };
      for (Object[] b : bad) {
        Res r = f.get(TASKS + b[0]);
        assertThat(r.status()).as(b[0] + " -> " + r.body()).isEqualTo(400);
        assertThat(r.error()).as((String) b[0]).contains((String) b[1]);
      }
    }
  }

  /** A store that cannot be reached is a 503 that does not show where the store is or who logs in to it. */
  @Test
  void unavailableNamesNoStoreUriOrUser() {
    assumeTrue(PostgresServer.available(), "PostgreSQL binaries not installed");
    try (PostgresServer pg = PostgresServer.start(); Store store = Stores.open(pg.uri())) {
      TaskService tasks = TaskService.forPools(store, ApiFixture.TABLE, List.of("p"));
      try (ApiFixture f = new ApiFixture(new ApiHandler(tasks, ApiFixture.TOKEN), null)) {
        assertThat(f.get(TASKS).status()).isEqualTo(200);
        pg.kill();
        for (String[] c : new String[][] {{"GET", TASKS}, {"POST", TASKS}, {"GET", "/api/v1/pools"}}) {
          Res r = f.write(c[0], c[1], c[0].equals("POST") ? "{\"name\":\"t\"}" : null);
          assertThat(r.status()).as(r.body()).isEqualTo(503);
          assertThat(r.error()).as(c[0] + " " + c[1]).startsWith("store: unavailable")
              .doesNotContain("postgresql:").doesNotContain(PostgresServer.USER)
              .doesNotContain(pg.uri().replaceAll(".*@", "").replaceAll("/.*", ""));
        }
      }
    }
  }

  /** A PUT without cost keeps the cost as it is when the write happens: a concurrent PUT's cost survives. */
  @Test
  void aPutWithoutCostDoesNotRevertAConcurrentCost() {
    MemoryStore memory = new MemoryStore();
    FaultyStore store = new FaultyStore(memory);
    AtomicBoolean raced = new AtomicBoolean();
    TaskService tasks = TaskService.forPools(store, ApiFixture.TABLE, List.of("p"));
    try (ApiFixture f = new ApiFixture(new ApiHandler(tasks, ApiFixture.TOKEN), memory)) {
      assertThat(f.write("POST", TASKS, "{\"name\":\"c\",\"args\":{\"v\":1},\"cost\":1}").status()).isEqualTo(201);
      // another PUT, with a cost, lands just before this PUT's write
      store.intercept(call -> {
        if (call.startsWith("taskSpecs.update") && raced.compareAndSet(false, true)) {
          memory.taskSpecs("p").update("c", "{\"v\":1}", 5);
        }
      });
      Res put = f.write("PUT", TASKS + "/c", "{\"args\":{\"v\":2}}");
      assertThat(put.status()).as(put.body()).isEqualTo(200);
      assertThat(raced).isTrue();
      assertThat(memory.taskSpecs("p").get("c").orElseThrow().cost()).as("the concurrent PUT's cost").isEqualTo(5);
      assertThat(memory.taskSpecs("p").get("c").orElseThrow().args()).isEqualTo("{\"v\":2}");
    }
  }
}
