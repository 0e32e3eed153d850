package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.tasks.v1.ListPoolsRequest;
import io.allot.tasks.v1.Pool;
import io.allot.tasks.v1.TasksGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** `allot server` and `allot dev` as real processes serve the task API: REST with the token from API_TOKEN, gRPC. */
class ApiProcessTest {
  private final HttpClient http = HttpClient.newHttpClient();

  /** Starts the process and returns it once a line matches {@code ready}; the first pool is completed with it. */
  static Process start(ProcessBuilder pb, Pattern ready, CompletableFuture<Integer> port, StringBuffer log)
      throws Exception {
    Process proc = pb.redirectErrorStream(true).start();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          log.append(line).append('\n');
          Matcher m = ready.matcher(line);
          if (m.find()) {
            port.complete(Integer.parseInt(m.group(1)));
          }
        }
      } catch (Exception ignored) {
        // ended
      }
      port.complete(-1);
    });
    reader.setDaemon(true);
    reader.start();
    return proc;
  }

  /** A process started by {@link #start} whose ready line gave its HTTP port; closing it kills it. */
  record Running(Process proc, int port, StringBuffer log) implements AutoCloseable {
    static Running of(ProcessBuilder pb, String readyLine) throws Exception {
      StringBuffer log = new StringBuffer();
      CompletableFuture<Integer> port = new CompletableFuture<>();
      Process proc = start(pb, Pattern.compile(readyLine), port, log);
      int p = port.get(30, TimeUnit.SECONDS);
      assertThat(p).as(log.toString()).isPositive();
      return new Running(proc, p, log);
    }

    String url(String path) {
      return "http://127.0.0.1:" + port + path;
    }

    @Override
    public void close() throws InterruptedException {
      proc.destroyForcibly();
      proc.waitFor(20, TimeUnit.SECONDS);
    }
  }

  HttpResponse<String> send(String method, String url, String body, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void serverServesRestWithTheEnvTokenAndGrpc() throws Exception {
    int grpcPort = freePort();
    ProcessBuilder pb = ServerProcessTest.allot("server", "-store", "memory:", "-prom-port", "0",
        "-services-namespaces", "g1,g2", "-api-grpc-port", String.valueOf(grpcPort));
    pb.environment().put("API_TOKEN", "env-token");
    try (Running r = Running.of(pb, "task API on :(\\d+)/api/v1")) {
      assertThat(r.log().toString()).contains("gRPC allot.tasks.v1.Tasks on :" + grpcPort)
          .contains("writes need the bearer token");
      String tasks = r.url("/api/v1/pools/g1/tasks");
      assertThat(send("POST", tasks, "{\"name\":\"a\"}", null).statusCode()).isEqualTo(401);
      assertThat(send("POST", tasks, "{\"name\":\"a\"}", "env-token").statusCode()).isEqualTo(201);
      HttpResponse<String> got = send("GET", tasks + "/a", null, null);
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.body()).contains("\"status\":\"Pending\"");
      assertThat(send("GET", r.url("/api/v1/pools/other/tasks"), null, null).statusCode()).isEqualTo(404);
      assertThat(send("GET", r.url("/metrics"), null, null).statusCode()).isEqualTo(200);

      ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
      try {
        assertThat(TasksGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
            .listPools(ListPoolsRequest.getDefaultInstance()).getPoolsList())
            .extracting(Pool::getName, Pool::getTasks).containsExactly(
                org.assertj.core.groups.Tuple.tuple("g1", 1), org.assertj.core.groups.Tuple.tuple("g2", 0));
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  /** Without a token, writes are loopback-only and the start-up line says so; the flag that opens them is documented. */
  @Test
  void withoutATokenTheStartUpLineSaysWritesAreLoopbackOnly() throws Exception {
    ProcessBuilder pb = ServerProcessTest.allot("server", "-store", "memory:", "-prom-port", "0",
        "-services-namespaces", "g1");
    pb.environment().remove("API_TOKEN");
    try (Running r = Running.of(pb, "task API on :(\\d+)/api/v1")) {
      assertThat(r.log().toString()).contains("no API token: writes only from loopback").contains("-api-open-writes");
      assertThat(send("POST", r.url("/api/v1/pools/g1/tasks"), "{\"name\":\"l\"}", null).statusCode())
          .as("loopback writes").isEqualTo(201);
    }
    assertThat(CliRun.of("server", "--help").out()).contains("-api-open-writes");
  }

  @Test
  void devServesTheApiForItsPool() throws Exception {
    ProcessBuilder pb = ServerProcessTest.allot("dev", "--members", "1", "--units", "2", "--duration", "60s",
        "-prom-port", "0", "-api-token", "dev-token");
    try (Running r = Running.of(pb, "task API on http://127.0.0.1:(\\d+)/api/v1")) {
      String tasks = r.url("/api/v1/pools/sys-robots-list/tasks");
      assertThat(send("POST", tasks, "{\"name\":\"d\"}", "wrong").statusCode()).isEqualTo(401);
      // the dev pool is fed by its units list: a task would have dropped them all from the table (issue 18)
      HttpResponse<String> refused = send("POST", tasks, "{\"name\":\"d\",\"args\":{\"k\":1}}", "dev-token");
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
      assertThat(refused.body()).contains("pool 'sys-robots-list' takes its units from the units list 'sys-channels'");
      assertThat(send("GET", tasks + "/d", null, null).statusCode()).isEqualTo(404);
      assertThat(send("GET", r.url("/api/v1/pools"), null, null).body()).contains("sys-robots-list");
    }
  }
}
