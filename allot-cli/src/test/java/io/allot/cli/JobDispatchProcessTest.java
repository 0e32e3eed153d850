package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.postgres.PostgresStore;
import io.allot.testkit.Ports;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.fleet.Fleet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code allot job dispatcher} pushing a PostgreSQL queue's jobs to two {@code allot job endpoint} processes. */
class JobDispatchProcessTest {
  @TempDir Path dir;

  private Process start(List<Process> all, String label, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(Fleet.SMALL_JVM);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Fleet.CLI_MAIN));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve(label + ".out").toFile())
        .start();
    all.add(p);
    return p;
  }

  @Test
  void aDispatcherPushesEveryJobToTheEndpointsOnce() throws Exception {
    PostgresSchema schema = PostgresSchema.create("allot_qd");
    String uri = schema.uri();
    List<Process> all = new ArrayList<>();
    int n = 300;
    try (PostgresStore store = PostgresStore.connect(uri)) {
      JobQueue q = store.jobQueue("pushed");
      q.enqueue(IntStream.range(0, n).mapToObj(i -> NewJob.of("t" + i, i % 50 == 0 ? "fail-once" : "ok")).toList());
      int p1 = Ports.free();
      int p2 = Ports.free();
      start(all, "e1", "job", "endpoint", "--port", Integer.toString(p1), "--capacity", "4", "--work-ms", "2");
      start(all, "e2", "job", "endpoint", "--port", Integer.toString(p2), "--capacity", "4", "--work-ms", "2");
      Path events = dir.resolve("dispatcher.events");
      start(all, "d", "job", "dispatcher", "-store", uri, "--queue", "pushed", "--endpoints",
          "127.0.0.1:" + p1 + ",127.0.0.1:" + p2, "--events", events.toString(), "--lock-ttl", "5s");
      Awaitility.await("every job finished").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
          .until(() -> q.stats(0).count(JobStatus.FINISHED) == n);
      List<String> done = Files.readAllLines(events).stream().filter(l -> l.contains(" done ")).toList();
      assertThat(done).hasSize(n);
      assertThat(done.stream().map(l -> l.split(" ")[2]).distinct().count()).isEqualTo(n);
      assertThat(done.stream().map(l -> l.split(" ")[4]).distinct().count()).as("both endpoints worked").isEqualTo(2);
      assertThat(Files.readAllLines(events).stream().filter(l -> l.contains(" failed ")).count()).isEqualTo(n / 50);
    } finally {
      for (Process p : all) {
        p.destroyForcibly();
      }
      schema.close();
    }
  }

  /**
   * An endpoint process that requires a token counts the refused stream of a dispatcher process without it on its
   * {@code /metrics}, and the refused dispatcher writes it to the event history (the endpoint has no store).
   */
  @Test
  void aRefusedDispatcherIsCountedOnTheEndpointsMetricsAndIsAnEventOfTheHistory() throws Exception {
    PostgresSchema schema = PostgresSchema.create("allot_qr");
    String uri = schema.uri();
    List<Process> all = new ArrayList<>();
    try (PostgresStore store = PostgresStore.connect(uri)) {
      JobQueue q = store.jobQueue("guarded");
      q.enqueue(List.of(NewJob.of("j1", "ok")));
      int port = Ports.free();
      int prom = Ports.free();
      start(all, "e", "job", "endpoint", "--port", Integer.toString(port), "-dispatcher-token", "s3cret",
          "-prom-port", Integer.toString(prom));
      start(all, "d", "job", "dispatcher", "-store", uri, "--queue", "guarded", "--endpoints", "127.0.0.1:" + port,
          "--lock-ttl", "5s");
      java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
      java.net.URI metrics = java.net.URI.create("http://127.0.0.1:" + prom + "/metrics");
      Awaitility.await("the refusal on the endpoint's /metrics").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> http.send(
              java.net.http.HttpRequest.newBuilder(metrics).build(),
              java.net.http.HttpResponse.BodyHandlers.ofString()).body().lines()
              .anyMatch(l -> l.startsWith("allot_api_refused_total{") && l.contains("channel=\"dispatch\"")
                  && l.contains("reason=\"missing\"") && !l.endsWith(" 0.0")));
      Awaitility.await("the refused dispatcher's api-refused event").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200)).until(() -> store.events().query(io.allot.store.events.EventQuery
              .all().ofKinds(java.util.Set.of(io.allot.store.events.EventKind.API_REFUSED))).events().stream()
              .anyMatch(e -> e.subject().equals("endpoint 127.0.0.1:" + port)));
      assertThat(q.get("j1").orElseThrow().status()).isEqualTo(JobStatus.TODO);
    } finally {
      for (Process p : all) {
        p.destroyForcibly();
      }
      schema.close();
    }
  }
}
