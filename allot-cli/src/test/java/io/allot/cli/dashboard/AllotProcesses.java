package io.allot.cli.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.Stores;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the dashboard's browser tests look at, as real processes like {@code bin/allot dev} runs in one: an
 * {@code allot server} on the local Redis (serving the API, with a token, and {@code /ui}) and workers on the SDK
 * (leases, a version, a zone), all under this fixture's own key names. Closing it kills every process.
 */
final class AllotProcesses implements AutoCloseable {
  static final String REDIS = "redis://127.0.0.1:6379";
  static final String TOKEN = "dashboard-test-token";
  private static final Pattern HTTP_PORT = Pattern.compile("metrics on :(\\d+)/metrics");
  private static final Pattern JOINED = Pattern.compile("worker (\\S+) joined pool");

  final String prefix = "ui-" + UUID.randomUUID().toString().substring(0, 8) + "-";
  final String pool = prefix + "robots";
  final String units = prefix + "channels";
  final String table = prefix + "table";
  final String queue = prefix + "jobs";
  private final HttpClient http = HttpClient.newHttpClient();
  // guarded by this
  private final List<Process> processes = new ArrayList<>();
  final Started server;

  /** A process and the first group of its ready line (a port, a member id), with its output so far. */
  record Started(Process process, String ready, StringBuffer log) {}

  AllotProcesses(int workers) throws Exception {
    try (Store store = Stores.open(REDIS)) {
      store.seedKeys().replaceList(units, List.of()); // the pool's units are its long-running tasks
    }
    server = start(HTTP_PORT, "server", "-store", REDIS, "-prom-port", "0", "-poll-interval", "250ms",
        "-ping-timeout", "250ms", "-services-namespaces", pool, "-workunits-namespace", units,
        "-distribution-namespace", table, "-api-token", TOKEN);
    for (int i = 1; i <= 12; i++) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url("/api/v1/pools/" + pool + "/tasks")))
          .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(
              "{\"name\":\"site-" + i + "\",\"args\":{\"url\":\"https://site-" + i + ".example\"}}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }
    for (int i = 0; i < workers; i++) {
      startWorker("v1." + i, i % 2 == 0 ? "zone-a" : "zone-b");
    }
  }

  /** Starts a worker of the pool; returns it once it joined, its member id as {@code ready}. */
  Started startWorker(String version, String zone) throws Exception {
    return start(JOINED, "worker", "--pool", pool, "--port", "0", "--host", "127.0.0.1", "-store", REDIS,
        "--distribution-namespace", table, "--member-version", version, "--zone", zone, "--label", "team=ui");
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.ready() + path;
  }

  /** GET of {@code path} on the server. */
  HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url(path))).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Whether the server's OpenAPI document lists {@code template} (the API's routes, as the page reads them). */
  boolean lists(String template) throws Exception {
    return get("/api/v1/openapi.json").body().contains("\"/api/v1" + template + "\"");
  }

  private Started start(Pattern ready, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
        System.getProperty("java.class.path"), "io.allot.cli.Main"));
    cmd.addAll(List.of(args));
    Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    synchronized (this) {
      processes.add(proc);
    }
    StringBuffer log = new StringBuffer();
    CompletableFuture<String> found = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          log.append(line).append('\n');
          Matcher m = ready.matcher(line);
          if (m.find()) {
            found.complete(m.group(1));
          }
        }
      } catch (Exception ignored) {
        // the process ended
      }
      found.complete(null);
    }, "allot-output-" + args[0]);
    reader.setDaemon(true);
    reader.start();
    String r = found.get(90, TimeUnit.SECONDS);
    assertThat(r).as("%s never said it was ready:%n%s", args[0], log).isNotNull();
    return new Started(proc, r, log);
  }

  @Override
  public synchronized void close() throws InterruptedException {
    for (Process p : processes) {
      p.destroyForcibly();
    }
    for (Process p : processes) {
      p.waitFor(20, TimeUnit.SECONDS);
    }
    try (Store store = Stores.open(REDIS)) {
      store.seedKeys().replaceList(units, List.of());
    }
  }
}
