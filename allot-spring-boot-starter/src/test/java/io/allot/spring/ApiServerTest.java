package io.allot.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.allot.server.auth.Authenticator;
import io.allot.server.http.OpsHttpServer;
import io.allot.testkit.TestCa;
import io.allot.tls.PemTls;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code allot.api.enabled}: the task API inside the application, its tokens (write, read, a reloaded file), the route
 * groups, the dashboard, HTTPS, and off by default.
 */
class ApiServerTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AllotStoreAutoConfiguration.class, AllotApiAutoConfiguration.class))
      .withPropertyValues("allot.store=memory:");
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void offByDefault() {
    runner.run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(OpsHttpServer.class));
  }

  @Test
  void servesTheTaskApiAndRefusesWritesWithoutTheToken() {
    runner.withPropertyValues("allot.api.enabled=true", "allot.api.port=0", "allot.api.token=s3cret").run(ctx -> {
      assertThat(ctx).hasNotFailed();
      String base = "http://127.0.0.1:" + ctx.getBean(OpsHttpServer.class).port();
      HttpResponse<String> pools = send(HttpRequest.newBuilder(URI.create(base + "/api/v1/pools")).build());
      assertThat(pools.statusCode()).isEqualTo(200);
      assertThat(pools.body()).contains("pools");
      assertThat(send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build()).statusCode()).isEqualTo(200);

      HttpRequest.BodyPublisher task = HttpRequest.BodyPublishers.ofString("{\"name\":\"t1\",\"args\":{}}");
      URI tasks = URI.create(base + "/api/v1/pools/api-pool/tasks");
      assertThat(send(HttpRequest.newBuilder(tasks).POST(task).build()).statusCode()).isEqualTo(401);
      assertThat(send(HttpRequest.newBuilder(tasks).header("Authorization", "Bearer s3cret").POST(task).build())
          .statusCode()).isEqualTo(201);
    });
  }

  @Test
  void aReadTokenClosesReadsAndTheTokensFileIsReloaded(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, "# name role token\nops write w-from-file\n");
    runner.withPropertyValues("allot.api.enabled=true", "allot.api.port=0", "allot.api.read-token=r1",
        "allot.api.tokens-file=" + file).run(ctx -> {
          assertThat(ctx).hasNotFailed();
          String base = "http://127.0.0.1:" + ctx.getBean(OpsHttpServer.class).port();
          URI pools = URI.create(base + "/api/v1/pools");
          assertThat(send(HttpRequest.newBuilder(pools).build()).statusCode()).isEqualTo(401);
          assertThat(send(HttpRequest.newBuilder(pools).header("Authorization", "Bearer r1").build()).statusCode())
              .isEqualTo(200);
          URI tasks = URI.create(base + "/api/v1/pools/api-pool/tasks");
          HttpRequest.BodyPublisher task = HttpRequest.BodyPublishers.ofString("{\"name\":\"t1\",\"args\":{}}");
          assertThat(send(HttpRequest.newBuilder(tasks).header("Authorization", "Bearer r1").POST(task).build())
              .statusCode()).isEqualTo(403);
          assertThat(send(HttpRequest.newBuilder(tasks).header("Authorization", "Bearer w-from-file").POST(task)
              .build()).statusCode()).isEqualTo(201);
          // revoked in the file: refused without a restart
          Files.writeString(file, "ops write w-new\n");
          Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> send(HttpRequest.newBuilder(pools)
              .header("Authorization", "Bearer w-from-file").build()).statusCode() == 401);
          assertThat(send(HttpRequest.newBuilder(pools).header("Authorization", "Bearer w-new").build())
              .statusCode()).isEqualTo(200);
        });
  }

  @Test
  void refusalsAreCountedInTheApplicationsMeterRegistry() {
    runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("allot.api.enabled=true", "allot.api.port=0", "allot.api.token=s3cret").run(ctx -> {
          assertThat(ctx).hasNotFailed();
          URI tasks = URI.create("http://127.0.0.1:" + ctx.getBean(OpsHttpServer.class).port()
              + "/api/v1/pools/api-pool/tasks");
          HttpRequest.BodyPublisher task = HttpRequest.BodyPublishers.ofString("{\"name\":\"t1\",\"args\":{}}");
          assertThat(send(HttpRequest.newBuilder(tasks).POST(task).build()).statusCode()).isEqualTo(401);
          assertThat(ctx.getBean(MeterRegistry.class).find(Authenticator.REFUSED_METRIC).counters())
              .extracting(c -> c.count()).containsExactly(1.0);
        });
  }

  @Test
  void badTokenSettingsFailTheStartNamingTheProperty(@TempDir Path dir) {
    runner.withPropertyValues("allot.api.enabled=true", "allot.api.port=0", "allot.api.read-token=r1").run(ctx ->
        assertThat(ctx).getFailure().rootCause().hasMessageContaining("allot.api.read-token"));
    runner.withPropertyValues("allot.api.enabled=true", "allot.api.port=0",
        "allot.api.tokens-file=" + dir.resolve("missing")).run(ctx ->
        assertThat(ctx).getFailure().hasStackTraceContaining("allot.api.tokens-file: token file")
            .hasStackTraceContaining("missing"));
  }

  @Test
  void servesTheRouteGroupsAndTheDashboard() {
    runner.withPropertyValues("allot.api.enabled=true", "allot.api.port=0", "allot.api.units-list=the-units")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          String base = "http://127.0.0.1:" + ctx.getBean(OpsHttpServer.class).port();
          HttpResponse<String> queues = send(HttpRequest.newBuilder(URI.create(base + "/api/v1/queues")).build());
          assertThat(queues.statusCode()).as(queues.body()).isEqualTo(200);
          assertThat(queues.body()).contains("queues");
          for (String route : new String[] {"table", "weights", "units"}) {
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + "/api/v1/pools/p/" + route))
                .build());
            assertThat(r.statusCode()).as(route + ": " + r.body()).isEqualTo(200);
          }
          HttpResponse<String> ui = send(HttpRequest.newBuilder(URI.create(base + "/ui/")).build());
          assertThat(ui.statusCode()).isEqualTo(200);
          assertThat(ui.body()).containsIgnoringCase("<html");
        });
  }

  @Test
  void withACertificateThePortServesHttps(@TempDir Path dir) throws Exception {
    assumeThat(TestCa.available()).as("openssl(1) makes the test certificates").isTrue();
    TestCa ca = TestCa.create(dir);
    TestCa.Issued cert = ca.issue("server");
    runner.withPropertyValues("allot.api.enabled=true", "allot.api.port=0", "allot.api.tls.cert=" + cert.cert(),
        "allot.api.tls.key=" + cert.key()).run(ctx -> {
          assertThat(ctx).hasNotFailed();
          int port = ctx.getBean(OpsHttpServer.class).port();
          HttpClient https = HttpClient.newBuilder()
              .sslContext(PemTls.client(ca.cert(), null, null, Duration.ZERO).sslContext())
              .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
          HttpResponse<String> pools = https.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port
              + "/api/v1/pools")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
          assertThat(pools.statusCode()).as(pools.body()).isEqualTo(200);
          assertThat(pools.sslSession()).isPresent();
        });
  }

  @Test
  void withAClientCaOnlyClientsWithItsCertificatesAreServed(@TempDir Path dir) throws Exception {
    assumeThat(TestCa.available()).as("openssl(1) makes the test certificates").isTrue();
    TestCa ca = TestCa.create(dir);
    TestCa.Issued server = ca.issue("server");
    TestCa.Issued client = ca.issue("client");
    runner.withPropertyValues("allot.api.enabled=true", "allot.api.port=0", "allot.api.tls.cert=" + server.cert(),
        "allot.api.tls.key=" + server.key(), "allot.api.tls.client-ca=" + ca.cert()).run(ctx -> {
          assertThat(ctx).hasNotFailed();
          URI healthz = URI.create("https://127.0.0.1:" + ctx.getBean(OpsHttpServer.class).port() + "/healthz");
          HttpClient withCert = https(PemTls.client(ca.cert(), client.cert(), client.key(), Duration.ZERO));
          assertThat(withCert.send(HttpRequest.newBuilder(healthz).timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
          HttpClient withoutCert = https(PemTls.client(ca.cert(), null, null, Duration.ZERO));
          assertThatThrownBy(() -> withoutCert.send(HttpRequest.newBuilder(healthz).timeout(Duration.ofSeconds(10))
              .build(), HttpResponse.BodyHandlers.ofString())).isInstanceOf(java.io.IOException.class);
        });
  }

  private static HttpClient https(PemTls tls) {
    return HttpClient.newBuilder().sslContext(tls.sslContext()).version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();
  }

  @Test
  void aKeyWithoutACertificateFailsTheStartNamingTheProperty(@TempDir Path dir) {
    runner.withPropertyValues("allot.api.enabled=true", "allot.api.port=0", "allot.api.tls.key=" + dir.resolve("k"))
        .run(ctx -> assertThat(ctx).getFailure().rootCause().hasMessageContaining("allot.api.tls.cert"));
  }

  private HttpResponse<String> send(HttpRequest request) throws Exception {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
