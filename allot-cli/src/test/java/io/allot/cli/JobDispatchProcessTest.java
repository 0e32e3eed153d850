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
}
