package io.allot.cli.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.cli.dev.DevNames;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running {@code bin/allot dev} for the dashboard's browser tests: the whole platform in one process on the
 * in-memory store (nothing shared with other tests), its HTTP port free ({@code -prom-port 0}), its dashboard read
 * from the first line it prints, and a short {@code --chaos-every}. Closing it kills the process.
 */
final class DevProcess implements AutoCloseable {
  private static final Pattern DASHBOARD = Pattern.compile("^dashboard: (http://\\S+)/ui$");
  /** The names of a run on the in-memory store. */
  static final DevNames NAMES = DevNames.DEFAULT;

  private final Process process;
  private final StringBuffer log = new StringBuffer();
  private final HttpClient http = HttpClient.newHttpClient();
  /** The server's base address, {@code http://127.0.0.1:PORT}. */
  final String base;

  /** Starts {@code allot dev} with {@code chaosEvery} (e.g. {@code "2s"}); returns once it printed its dashboard. */
  DevProcess(String chaosEvery) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
        System.getProperty("java.class.path"), "io.allot.cli.Main", "dev", "--duration", "900s", "--chaos-every",
        chaosEvery, "-prom-port", "0"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove("API_TOKEN"); // dev's API takes writes without a token
    pb.environment().remove("STORE"); // the in-memory store
    process = pb.start();
    CompletableFuture<String> found = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          log.append(line).append('\n');
          Matcher m = DASHBOARD.matcher(line);
          if (m.find()) {
            found.complete(m.group(1));
          }
        }
      } catch (Exception ignored) {
        // the process ended
      }
      found.complete(null);
    }, "allot-dev-output");
    reader.setDaemon(true);
    reader.start();
    String at = found.get(120, TimeUnit.SECONDS);
    assertThat(at).as("allot dev never printed its dashboard:%n%s", log).isNotNull();
    base = at;
  }

  String url(String path) {
    return base + path;
  }

  /** GET of {@code path} on dev's server. */
  HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url(path))).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** What the process printed so far. */
  String log() {
    return log.toString();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(20, TimeUnit.SECONDS);
  }
}
