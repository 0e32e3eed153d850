package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.Tables;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** `allot server` (and `allot worker`) as real processes: ops endpoints, SIGTERM, a store that cannot be opened. */
class ServerProcessTest {

  /** {@code java -cp <test class path> io.allot.cli.Main args...}, standard error separate. */
  static ProcessBuilder allot(String... args) {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
        System.getProperty("java.class.path"), Main.class.getName()));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd);
  }

  /** Runs to the end; returns the exit code and standard error's lines. */
  static Finished finish(ProcessBuilder pb) throws IOException, InterruptedException {
    Process p = pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try {
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
      return new Finished(p.exitValue(), err.lines().toList());
    } finally {
      p.destroyForcibly();
    }
  }

  record Finished(int code, List<String> errLines) {}

  @Test
  void aStoreThatCannotBeOpenedIsOneLineAndExit2() throws Exception {
    for (String[] args : new String[][] {
        {"server", "-store", "nosuch://x", "-prom-port", "0"},
        {"worker", "--pool", "g", "--port", "0", "-store", "nosuch://x"},
        {"server", "-store", "redis://:s3cret@127.0.0.1:1", "-prom-port", "0"}}) {
      Finished f = finish(allot(args));
      String what = String.join(" ", args);
      assertThat(f.code()).as(what).isEqualTo(2);
      assertThat(f.errLines()).as(what).hasSize(1);
      assertThat(f.errLines().get(0)).as(what).startsWith("allot: ").doesNotContain("s3cret")
          .containsAnyOf("'nosuch://x'", "'redis://:***@127.0.0.1:1'");
    }
  }

  /**
   * Starts {@code allot args...} and returns once a line of its (merged) output matches {@code ready}, with every line
   * so far; the process is ended when the test ends.
   */
  static List<String> outputUntil(Pattern ready, String... args) throws Exception {
    Process proc = allot(args).redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
      CompletableFuture<Void> found = CompletableFuture.runAsync(() -> {
        try {
          for (String line; (line = r.readLine()) != null; ) {
            synchronized (lines) {
              lines.add(line);
            }
            if (ready.matcher(line).find()) {
              return;
            }
          }
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      found.get(60, TimeUnit.SECONDS);
    } finally {
      proc.destroyForcibly();
      proc.waitFor(20, TimeUnit.SECONDS);
    }
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  @Test
  void theServerPrintsTheStoresDurabilityFindingsOnceAtStart() throws Exception {
    List<String> findings;
    try (Store memory = Stores.open("memory:")) {
      findings = memory.safety().findings();
    }
    assertThat(findings).as("the memory store says it keeps nothing").isNotEmpty();
    List<String> out = outputUntil(Pattern.compile("metrics on :\\d+/metrics"), "server", "-store", "memory:",
        "-prom-port", "0", "-services-namespaces", "g");
    for (String f : findings) {
      assertThat(out).as(String.join("\n", out)).containsOnlyOnce("allot: WARN store memory:: " + f);
    }
  }

  @Test
  void theWorkerPrintsTheStoresDurabilityFindingsOnceAtStartAndAdvertisesAReachableHostByDefault() throws Exception {
    String redis = "redis://127.0.0.1:6379";
    List<String> findings;
    try (Store store = Stores.open(redis)) {
      findings = store.safety().findings();
    }
    assertThat(findings).as("the test Redis keeps no append-only file: a finding says so").isNotEmpty();
    String pool = "findings-" + UUID.randomUUID().toString().substring(0, 8);
    Pattern joined = Pattern.compile("worker (\\S+) joined pool");
    List<String> out = outputUntil(joined, "worker", "--pool", pool, "--port", "0", "-store", redis);
    for (String f : findings) {
      // said once: by the store's log (which comes first), so the command does not print it again
      assertThat(out).as(String.join("\n", out)).filteredOn(l -> l.contains(f)).hasSize(1)
          .allMatch(l -> l.matches("\\S+ WARN RedisDurability - .*"));
    }
    // no --host: an address other hosts can reach, when this machine has one
    String id = out.stream().map(joined::matcher).filter(Matcher::find).map(m -> m.group(1)).findFirst().orElseThrow();
    String host = id.substring(0, id.lastIndexOf(':'));
    List<String> reachable = new ArrayList<>();
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (nic.isUp() && !nic.isLoopback()) {
        Collections.list(nic.getInetAddresses()).stream().filter(a -> !a.isLinkLocalAddress())
            .forEach(a -> reachable.add(a.getHostAddress().replaceAll("%.*$", "")));
      }
    }
    if (reachable.isEmpty()) {
      assertThat(host).isEqualTo("127.0.0.1");
    } else {
      assertThat(reachable).as("member id " + id).contains(host.replaceAll("^\\[|\\]$", ""));
    }
  }

  @Test
  void servesMetricsVersionHealthAndReleasesLeadershipOnSigterm() throws Exception {
    String p = "proc-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    CompletableFuture<Integer> port = new CompletableFuture<>();
    StringBuffer log = new StringBuffer();
    Process proc = ApiProcessTest.start(
        allot("server", "-redis-addrs", "127.0.0.1:6379", "-prom-port", "0", "-services-namespaces", p + "services",
                "-workunits-namespace", p + "units", "-distribution-namespace", p + "table", "-poll-interval", "200ms",
                "-ping-timeout", "200ms", "-leader-ttl", "60s"),
        Pattern.compile("metrics on :(\\d+)/metrics"), port, log);
    try (Store redis = Stores.open("redis://127.0.0.1:6379")) {
      int prom = port.get(30, TimeUnit.SECONDS);
      assertThat(prom).as(log.toString()).isPositive();
      HttpClient http = HttpClient.newHttpClient();
      String lease = Tables.leaseName(p + "table", p + "services");
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.leadership().current(lease).isPresent());
      HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prom + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("allot_distributor_leader").contains("allot_distributor_members").contains("allot_distributor_rounds_seconds").contains("allot_store_round_trip_seconds").contains("allot_tasks_status");
      assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prom + "/version")).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
      assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prom + "/healthz")).build(), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("ok\n");
      proc.destroy(); // SIGTERM
      assertThat(proc.waitFor(20, TimeUnit.SECONDS)).isTrue();
      // released on the way out: no need to wait for the 60 s lease to expire
      assertThat(redis.leadership().current(lease)).isEmpty();
    } finally {
      proc.destroyForcibly();
    }
  }
}
