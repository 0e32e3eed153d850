package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.cli.ApiProcessTest.Running;
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

/** The API's token flags: -api-tokens FILE (reloaded), -api-read-token, their bad input; the refusals counted. */
class ApiTokensTest {
  private final HttpClient http = HttpClient.newHttpClient();
  @TempDir Path dir;

  int status(String method, String url, String body, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  @Test
  void aBadTokenFileLineIsBadInputNamingTheFileAndLine() throws Exception {
    Path f = dir.resolve("tokens");
    Files.writeString(f, "ci write tok-ci\nbroken line\n");
    CliRun r = CliRun.of("server", "-store", "memory:", "-prom-port", "0", "-api-tokens", f.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("-api-tokens: token file " + f + " line 2: must be 'name role token' (3 fields) "
        + "but has 2").doesNotContain("tok-ci");
    CliRun missing = CliRun.of("dev", "-api-tokens", dir.resolve("none").toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("-api-tokens: token file " + dir.resolve("none") + ": cannot read it");
  }

  @Test
  void aReadTokenAloneIsBadInput() {
    CliRun r = CliRun.of("server", "-store", "memory:", "-prom-port", "0", "-api-read-token", "r");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("-api-read-token: closes reads but no token could write");
    assertThat(CliRun.of("server", "--help").out()).contains("-api-tokens").contains("-api-read-token");
    assertThat(CliRun.of("dev", "--help").out()).contains("-api-tokens").contains("-api-read-token");
  }

  @Test
  void serverWithATokenFileAndAReadTokenClosesReadsReloadsTheFileAndCountsRefusals() throws Exception {
    Path f = dir.resolve("tokens");
    Files.writeString(f, "ci write tok-ci\n");
    ProcessBuilder pb = ServerProcessTest.allot("server", "-store", "memory:", "-prom-port", "0",
        "-services-namespaces", "g1", "-api-tokens", f.toString(), "-api-read-token", "tok-read");
    pb.environment().remove("API_TOKEN");
    try (Running r = Running.of(pb, "task API on :(\\d+)/api/v1")) {
      assertThat(r.log().toString()).contains("reads need one too").contains("token file " + f);
      String tasks = r.url("/api/v1/pools/g1/tasks");
      assertThat(status("GET", tasks, null, null)).as("reads closed").isEqualTo(401);
      assertThat(status("GET", tasks, null, "tok-read")).isEqualTo(200);
      assertThat(status("POST", tasks, "{\"name\":\"a\"}", "tok-read")).as("a read token cannot write").isEqualTo(403);
      assertThat(status("POST", tasks, "{\"name\":\"a\"}", "tok-ci")).isEqualTo(201);

      Files.writeString(f, "deploy write tok-deploy\n");
      Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(status("PUT", tasks + "/a", "{\"args\":{\"v\":2}}", "tok-deploy")).isEqualTo(200));
      assertThat(status("DELETE", tasks + "/a", null, "tok-ci")).as("removed from the file").isEqualTo(401);

      HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(r.url("/metrics"))).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.body()).contains("allot_api_refused_total{channel=\"rest\",reason=\"role\"} 1.0")
          .contains("allot_api_refused_total{channel=\"rest\",reason=\"missing\"} 1.0");
    }
  }
}
