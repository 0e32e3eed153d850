package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.allot.cli.dev.DevNames;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.QueueStats;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/allot dev} as a real process runs the whole platform, on memory, Redis and PostgreSQL: the first line is
 * the dashboard's address; SDK workers hold every unit of their pool; the long-running tasks are Processing; jobs
 * finish, one after a failed attempt and its retry, one ends ignored; routing calls reach the members; the chaos
 * stops and restarts members; the task API refuses a task in a units-fed pool naming that pool's own list. Read
 * through the REST API and the status lines (and, on a real store, the store itself).
 */
class DevProcessTest {
  private static final Pattern STATUS = Pattern.compile("status: workers (\\d+) of 3 running, holding (\\d+) units"
      + " \\| tasks (\\d+) of 4 Processing \\| jobs finished (\\d+) \\(after a retry (\\d+)\\), retries (\\d+), ignored"
      + " (\\d+) \\| route calls ok (\\d+)");
  private static final Duration DEADLINE = Duration.ofSeconds(120); // a loaded 2-core machine starts slowly
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void onTheMemoryStore() throws Exception {
    check(null, null, DevNames.DEFAULT);
  }

  @Test
  void onRedis() throws Exception {
    String prefix = "devtest-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    check(TestServers.redisUri(), prefix, DevNames.withPrefix(prefix));
  }

  @Test
  void onPostgres() throws Exception {
    try (PostgresSchema schema = PostgresSchema.create("allot_dev")) {
      check(schema.uri(), null, DevNames.withPrefix(DevNames.STORE_PREFIX)); // the default prefix of a real store
    }
  }

  /** Bad flags are one line naming them, exit 2, before anything starts. */
  @Test
  void badFlagsAreOneLineNamingThem() {
    CliRun bad = CliRun.of("dev", "--key-prefix", "a b", "-prom-port", "0");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).startsWith("allot: --key-prefix: 'a b'").hasLineCount(1);
    CliRun chaos = CliRun.of("dev", "--chaos-every", "0s", "-prom-port", "0");
    assertThat(chaos.code()).isEqualTo(2);
    assertThat(chaos.err()).contains("--chaos-every");
    CliRun old = CliRun.of("dev", "-members", "0");
    assertThat(old.err()).as("the old spelling still works").contains("--demo-members must be between 1 and 1000");
    CliRun env = CliRun.of(java.util.Map.of(StoreOption.ENV, "nosuch://x"), "dev", "-prom-port", "0");
    assertThat(env.code()).isEqualTo(2);
    assertThat(env.err()).as("STORE is read, as its help says").contains("nosuch://x").hasLineCount(1);
  }

  private void check(String storeUri, String prefix, DevNames names) throws Exception {
    List<String> args = new ArrayList<>(List.of("dev", "--duration", "300s", "--chaos-every", "4s", "-prom-port", "0"));
    if (storeUri != null) {
      args.addAll(List.of("--store", storeUri));
    }
    if (prefix != null) {
      args.addAll(List.of("--key-prefix", prefix));
    }
    ProcessBuilder pb = ServerProcessTest.allot(args.toArray(String[]::new));
    pb.environment().remove("API_TOKEN");
    pb.environment().remove(StoreOption.ENV); // the store is the flag's, or memory
    try (ApiProcessTest.Running r = ApiProcessTest.Running.of(pb, "task API on http://127.0.0.1:(\\d+)/api/v1");
        Store store = storeUri == null ? null : Stores.open(storeUri)) {
      // the first line but the store's connect-time warnings (appendonly no on a test Redis)
      String firstLine = r.log().toString().lines().filter(l -> !l.contains("WARN")).findFirst().orElse("");
      assertThat(firstLine).as(r.log().toString()).isEqualTo("dashboard: http://127.0.0.1:" + r.port() + "/ui");

      // the task API: per-pool units lists, so each 409 names the list of that pool
      assertThat(post(r, names.workerPool()).body()).contains("units list '" + names.workerUnits() + "'");
      assertThat(post(r, names.demoPool()).body()).contains("units list '" + names.units() + "'");

      await(r, () -> statusLines(r).stream().anyMatch(m -> Integer.parseInt(m.group(2)) == 12));
      await(r, () -> processing(r, names.taskPool()) == 4);
      await(r, () -> statusLines(r).stream().anyMatch(m -> num(m, 4) > 0 && num(m, 5) >= 1 && num(m, 7) >= 1
              && num(m, 8) > 0));
      await(r, () -> r.log().toString().contains(">>> restarting"));
      assertThat(r.log().toString()).contains(">>> stopping").contains("table of " + names.demoPool())
          .contains("table of " + names.workerPool()).contains("table of " + names.taskPool());
      JsonNode members = get(r, "/api/v1/pools/" + names.workerPool() + "/members").get("members");
      assertThat(members.size()).as(members.toString()).isGreaterThanOrEqualTo(2);
      assertThat(get(r, "/api/v1/pools").toString()).contains(names.demoPool()).contains(names.workerPool())
          .contains(names.taskPool());

      if (store != null) { // the same seen in the store itself
        assertThat(store.ownership(names.workerPool()).owners()).as("owned worker units").isNotEmpty();
        QueueStats q = store.jobQueue(names.queue()).stats(10);
        assertThat(q.count(JobStatus.FINISHED)).isPositive();
        assertThat(q.count(JobStatus.IGNORED)).isGreaterThanOrEqualTo(1);
        assertThat(store.seedKeys().list(names.units())).hasSize(20);
      }
    }
  }

  /** Waits for {@code condition}; on timeout fails with what the process printed. */
  private static void await(ApiProcessTest.Running r, java.util.concurrent.Callable<Boolean> condition) {
    try {
      Awaitility.await().atMost(DEADLINE).pollInterval(Duration.ofSeconds(1)).until(condition);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "; the process printed:\n" + r.log(), e);
    }
  }

  private static long num(Matcher m, int group) {
    return Long.parseLong(m.group(group));
  }

  private static List<Matcher> statusLines(ApiProcessTest.Running r) {
    List<Matcher> out = new ArrayList<>();
    for (String line : r.log().toString().split("\n")) {
      Matcher m = STATUS.matcher(line);
      if (m.find()) {
        out.add(m);
      }
    }
    return out;
  }

  private long processing(ApiProcessTest.Running r, String pool) throws Exception {
    JsonNode tasks = get(r, "/api/v1/pools/" + pool + "/tasks").get("tasks");
    long n = 0;
    for (JsonNode t : tasks) {
      n += t.path("status").asText().equals("Processing") ? 1 : 0;
    }
    return n;
  }

  private JsonNode get(ApiProcessTest.Running r, String path) throws Exception {
    HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(r.url(path))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(res.statusCode()).as(path + ": " + res.body()).isEqualTo(200);
    return json.readTree(res.body());
  }

  private HttpResponse<String> post(ApiProcessTest.Running r, String pool) throws Exception {
    HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(r.url("/api/v1/pools/" + pool + "/tasks")))
        .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"refused\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(res.statusCode()).as(res.body()).isEqualTo(409);
    return res;
  }
}
