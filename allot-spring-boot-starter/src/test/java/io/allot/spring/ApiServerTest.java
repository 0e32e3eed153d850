package io.allot.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.http.OpsHttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code allot.api.enabled}: the task API inside the application, its token, and off by default. */
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

  private HttpResponse<String> send(HttpRequest request) throws Exception {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
