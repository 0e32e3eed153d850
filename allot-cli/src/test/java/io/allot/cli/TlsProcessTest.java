package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.allot.testkit.Ports;
import io.allot.testkit.TestCa;
import io.allot.tls.PemTls;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS flags end to end: {@code allot server} serving HTTPS and dialing members over TLS, {@code allot worker}
 * answering pings over TLS only, on the local Redis, certificates made in the test; and bad TLS flags refused.
 */
class TlsProcessTest {
  static final String REDIS = "redis://127.0.0.1:6379";
  final List<Process> processes = new ArrayList<>();
  final String prefix = "tls:" + UUID.randomUUID().toString().substring(0, 8) + ":";
  @TempDir Path dir;

  @BeforeAll
  static void openssl() {
    assumeThat(TestCa.available()).as("openssl(1) makes the test certificates").isTrue();
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (Process p : processes) {
      p.destroyForcibly();
      p.waitFor(20, TimeUnit.SECONDS);
    }
  }

  Process start(String label, String... args) throws IOException {
    Process p = ServerProcessTest.allot(args).redirectErrorStream(true)
        .redirectOutput(dir.resolve(label + ".out").toFile()).start();
    processes.add(p);
    return p;
  }

  /** What the processes printed, for a failure's message. */
  String outputs() throws IOException {
    StringBuilder b = new StringBuilder();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.toString().endsWith(".out")).toList()) {
        b.append("\n--- ").append(f.getFileName()).append(":\n").append(Files.readString(f));
      }
    }
    return b.toString();
  }

  @Test
  void serverAndWorkerServeTlsOnlyAndSaySo() throws Exception {
    try {
      serverAndWorker();
    } catch (AssertionError | org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + outputs(), e);
    }
  }

  private void serverAndWorker() throws Exception {
    TestCa ca = TestCa.create(dir.resolve("ca"));
    TestCa.Issued server = ca.issue("server");
    TestCa.Issued worker = ca.issue("worker");
    int http = Ports.free();
    int ping = Ports.free();
    int api = Ports.free();
    String pool = prefix + "pool";
    start("server", "server", "-store", REDIS, "-prom-port", Integer.toString(http), "-services-namespaces", pool,
        "-workunits-namespace", prefix + "units", "-distribution-namespace", prefix + "table",
        "-api-grpc-port", Integer.toString(api),
        "-tls-cert", server.cert().toString(), "-tls-key", server.key().toString(), "-tls-ca", ca.cert().toString());
    start("worker", "worker", "--pool", pool, "--port", Integer.toString(ping), "--host", "127.0.0.1", "-store", REDIS,
        "--distribution-namespace", prefix + "table",
        "-tls-cert", worker.cert().toString(), "-tls-key", worker.key().toString());
    HttpClient https = HttpClient.newBuilder()
        .sslContext(PemTls.client(ca.cert(), null, null, Duration.ZERO).sslContext()).build();
    Awaitility.await("HTTPS /healthz").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
        .ignoreExceptions().until(() -> https.send(HttpRequest.newBuilder(
            URI.create("https://127.0.0.1:" + http + "/healthz")).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
    ChannelCredentials tls = PemTls.client(ca.cert(), null, null, Duration.ZERO).channelCredentials();
    Awaitility.await("the worker's pings over TLS").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
        .ignoreExceptions().until(() -> health(ping, tls) == HealthCheckResponse.ServingStatus.SERVING);
    assertThat(plainRefused(ping)).as("plain-text ping refused").isTrue();
    // the gRPC task API: a TLS handshake passes (the health method is not served there), plain text is refused
    Awaitility.await("the gRPC task API over TLS").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> code(api, tls) == io.grpc.Status.Code.UNIMPLEMENTED);
    assertThat(plainRefused(api)).as("plain-text gRPC API refused").isTrue();
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(Files.readString(dir.resolve("server.out"))).contains("HTTPS, TLS (certificate")
          .contains("pings to members: TLS (trusting " + ca.cert());
      assertThat(Files.readString(dir.resolve("worker.out"))).contains("pings on 127.0.0.1:" + ping + ": TLS (certificate");
    });
  }

  @Test
  void badTlsFlagsAreBadInputNamingTheFlag() throws IOException {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued cert = ca.issue("server");
    CliRun onlyCert = CliRun.of(Map.of(), "server", "-store", "memory", "-prom-port", "0", "-tls-cert",
        cert.cert().toString());
    assertThat(onlyCert.code()).isEqualTo(2);
    assertThat(onlyCert.err()).contains("-tls-cert needs -tls-key");
    Path missing = dir.resolve("missing.pem");
    CliRun badFile = CliRun.of(Map.of(), "job", "endpoint", "--port", Integer.toString(Ports.free()), "-tls-cert",
        missing.toString(), "-tls-key", cert.key().toString());
    assertThat(badFile.code()).isEqualTo(2);
    assertThat(badFile.err()).contains(missing.toString());
  }

  private static HealthCheckResponse.ServingStatus health(int port, ChannelCredentials credentials) {
    ManagedChannel ch = Grpc.newChannelBuilder("127.0.0.1:" + port, credentials).build();
    try {
      return ClientCalls.blockingUnaryCall(ch, HealthGrpc.getCheckMethod(),
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), HealthCheckRequest.getDefaultInstance())
          .getStatus();
    } finally {
      ch.shutdownNow();
    }
  }

  private static io.grpc.Status.Code code(int port, ChannelCredentials credentials) {
    try {
      health(port, credentials);
      return io.grpc.Status.Code.OK;
    } catch (io.grpc.StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  private static boolean plainRefused(int port) {
    try {
      health(port, InsecureChannelCredentials.create());
      return false;
    } catch (io.grpc.StatusRuntimeException e) {
      return e.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE;
    }
  }
}
