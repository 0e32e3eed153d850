package io.allot.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskService;
import io.allot.testkit.TestCa;
import io.allot.tls.Pem;
import io.allot.tls.PemTls;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP port over TLS (Jetty with allot-tls): the task API, mutual TLS, a rotated certificate, plain text. */
class HttpsTest {
  @TempDir
  Path dir;

  @BeforeAll
  static void openssl() {
    assumeThat(TestCa.available()).as("openssl(1) makes the test certificates").isTrue();
  }

  static OpsHttpServer server(MemoryStore store, PemTls tls) {
    return new OpsHttpServer(0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), "test", () -> true,
        new ApiHandler(TaskService.forPools(store, "sys-matching-table", List.of("p")), "", false), tls);
  }

  /** A GET with a new client (a new TLS session: no resumption). */
  static HttpResponse<String> get(PemTls client, String url) throws IOException, InterruptedException {
    HttpClient c = HttpClient.newBuilder().sslContext(client.sslContext()).version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();
    return c.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static BigInteger serial(HttpResponse<?> r) throws IOException {
    return ((X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0]).getSerialNumber();
  }

  @Test
  void theApiAnswersOverHttpsAndNotOverPlainHttp() throws Exception {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued cert = ca.issue("server");
    try (MemoryStore store = new MemoryStore();
        OpsHttpServer s = server(store, PemTls.server(cert.cert(), cert.key(), null, PemTls.DEFAULT_RELOAD))) {
      PemTls client = PemTls.client(ca.cert(), null, null, Duration.ZERO);
      HttpResponse<String> r = get(client, "https://127.0.0.1:" + s.port() + "/api/v1/pools/p/tasks");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(serial(r)).isEqualTo(Pem.certificates(cert.cert()).get(0).getSerialNumber());
      assertThat(get(client, "https://127.0.0.1:" + s.port() + "/healthz").body()).isEqualTo("ok\n");
      // a plain-text client gets no answer of the API: an error status or a closed connection
      HttpClient plain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      try {
        HttpResponse<String> p = plain.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port()
            + "/api/v1/pools/p/tasks")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(p.statusCode()).isNotEqualTo(200);
      } catch (IOException refused) {
        // the connection was closed: refused as well
      }
    }
  }

  @Test
  void withAClientCaOnlyClientsWithItsCertificatesAreServed() throws Exception {
    TestCa ca = TestCa.create(dir.resolve("ca"));
    TestCa.Issued cert = ca.issue("server");
    TestCa.Issued client = ca.issue("client");
    TestCa.Issued stranger = TestCa.create(dir.resolve("other")).issue("stranger");
    try (MemoryStore store = new MemoryStore();
        OpsHttpServer s = server(store, PemTls.server(cert.cert(), cert.key(), ca.cert(), PemTls.DEFAULT_RELOAD))) {
      String url = "https://127.0.0.1:" + s.port() + "/api/v1/pools/p/tasks";
      assertThat(get(PemTls.client(ca.cert(), client.cert(), client.key(), Duration.ZERO), url).statusCode())
          .isEqualTo(200);
      assertThatThrownBy(() -> get(PemTls.client(ca.cert(), null, null, Duration.ZERO), url))
          .isInstanceOf(IOException.class);
      assertThatThrownBy(() -> get(PemTls.client(ca.cert(), stranger.cert(), stranger.key(), Duration.ZERO), url))
          .isInstanceOf(IOException.class);
    }
  }

  @Test
  void aRotatedCertificateIsServedWithoutARestart() throws Exception {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued cert = ca.issue("server");
    try (MemoryStore store = new MemoryStore();
        OpsHttpServer s = server(store, PemTls.server(cert.cert(), cert.key(), null, Duration.ofMillis(100)))) {
      String url = "https://127.0.0.1:" + s.port() + "/healthz";
      BigInteger first = serial(get(PemTls.client(ca.cert(), null, null, Duration.ZERO), url));
      ca.issueInto(cert);
      BigInteger rotated = Pem.certificates(cert.cert()).get(0).getSerialNumber();
      assertThat(rotated).isNotEqualTo(first);
      Awaitility.await().atMost(Duration.ofSeconds(30))
          .until(() -> serial(get(PemTls.client(ca.cert(), null, null, Duration.ZERO), url)), rotated::equals);
    }
  }
}
