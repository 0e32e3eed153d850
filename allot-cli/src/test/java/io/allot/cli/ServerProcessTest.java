package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.redis.RedisStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** `allot server` as a real process against the local Redis: ops endpoints and SIGTERM. */
class ServerProcessTest {
  @Test
  void servesMetricsVersionHealthAndReleasesLeadershipOnSigterm() throws Exception {
    String p = "proc-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    String java = ProcessHandle.current().info().command().orElse("java");
    Process proc =
        new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "server",
                "-redis-addrs", "127.0.0.1:6379", "-prom-port", "0", "-services-namespaces", p + "services",
                "-workunits-namespace", p + "units", "-distribution-namespace", p + "table", "-poll-interval", "200ms",
                "-ping-timeout", "200ms", "-leader-ttl", "60s")
            .redirectErrorStream(true)
            .start();
    CompletableFuture<Integer> port = new CompletableFuture<>();
    StringBuffer log = new StringBuffer();
    Thread reader = new Thread(() -> {
      Pattern pat = Pattern.compile("metrics on :(\\d+)/metrics");
      try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          log.append(line).append('\n');
          Matcher m = pat.matcher(line);
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
    try (Store redis = RedisStore.connect("127.0.0.1:6379")) {
      int prom = port.get(30, TimeUnit.SECONDS);
      assertThat(prom).as(log.toString()).isPositive();
      HttpClient http = HttpClient.newHttpClient();
      String lease = Store.tableLeaseName(p + "table", p + "services");
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.currentLeader(lease).isPresent());
      HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prom + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("allot_leader").contains("allot_members").contains("allot_cycle");
      assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prom + "/version")).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
      assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prom + "/healthz")).build(), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("ok\n");
      proc.destroy(); // SIGTERM
      assertThat(proc.waitFor(20, TimeUnit.SECONDS)).isTrue();
      // released on the way out: no need to wait for the 60 s lease to expire
      assertThat(redis.currentLeader(lease)).isEmpty();
    } finally {
      proc.destroyForcibly();
    }
  }
}
