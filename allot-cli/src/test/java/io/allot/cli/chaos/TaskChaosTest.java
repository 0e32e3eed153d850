package io.allot.cli.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.allot.testkit.Ports;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.Signals;
import io.allot.testkit.TestServers;
import io.allot.testkit.fleet.Fleet;
import io.allot.testkit.overlap.OverlapChecker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Long-running tasks under chaos, with real processes on a real store: two distributors ({@code allot server}, one a
 * standby, both serving the management API) and four workers ({@code allot worker --capacity N}) run 500 tasks of
 * cost 1 and 2 created through the API. For {@code -Dallot.taskchaos.seconds} (default 20, to keep the
 * build within its time budget on two cores; the README gives the long runs) a driver kills workers
 * (SIGKILL) and pauses them (SIGSTOP past their lease), kills and pauses the leading distributor, and creates, updates
 * and deletes tasks through the API. Then the checks read only the workers' event files and the API:
 *
 * <ul>
 *   <li>no task ever had two owners at once ({@link OverlapChecker});</li>
 *   <li>no worker ever ran tasks costing more than its capacity at once (a sweep over its intervals);</li>
 *   <li>every live task is {@code Processing} again, on the owner the event files show, and runs exactly once;</li>
 *   <li>every deleted task is {@code Deleted} and stopped everywhere;</li>
 *   <li>the gaps between a surviving task's owners, measured against the failover bound.</li>
 * </ul>
 */
class TaskChaosTest {
  static final int SECONDS = Integer.getInteger("allot.taskchaos.seconds", 20);
  static final int WORKERS = 4;
  static final int TASKS = Integer.getInteger("allot.taskchaos.tasks", 500);
  /** Enough for the whole fleet's cost on three workers (one may be dead), not on two. */
  static final int CAPACITY = 200;
  static final String TOKEN = "chaos-secret";
  static final long MAX_GAP_MILLIS = Long.getLong("allot.taskchaos.maxGapMillis", 10_000);
  static final ObjectMapper JSON = new ObjectMapper();

  enum Action { KILL_WORKER, PAUSE_WORKER, KILL_DISTRIBUTOR, PAUSE_DISTRIBUTOR, CREATE, UPDATE, DELETE }

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"redis", "postgresql"})
  void tasksRunOnceWithinCapacityAndDeletesConverge(String storeKind) throws Exception {
    long seed = Long.getLong("allot.taskchaos.seed", System.nanoTime());
    String prefix = "tchaos-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    PostgresSchema schema = storeKind.equals("redis") ? null : PostgresSchema.create("allot_tchaos");
    String uri = storeKind.equals("redis") ? TestServers.redisUri() : schema.uri();
    try {
      chaos(storeKind, uri, seed, new Random(seed), prefix);
    } finally {
      if (schema != null) {
        schema.close();
      }
    }
  }

  /** A distributor process and the port of its HTTP API. */
  private record Server(Process process, String out, int port) {}

  private void chaos(String storeKind, String uri, long seed, Random rnd, String prefix) throws Exception {
    System.out.printf("task chaos on %s: %d s, %d tasks, seed %d (replay with -Dallot.taskchaos.seed=%d), files in"
        + " %s%n", storeKind, SECONDS, TASKS, seed, seed, dir);
    try (Fleet fleet = Fleet.builder(dir).storeArgs("-store", uri).prefix(prefix).build()) {
      String pool = fleet.pool();
      String[] serverArgs = {"-poll-interval", "250ms", "-ping-timeout", "250ms", "-down-after", "2", "-api-token",
          TOKEN};
      long setUp = System.currentTimeMillis();
      List<Server> servers = new ArrayList<>();
      servers.add(startServer(fleet, 1, serverArgs));
      servers.add(startServer(fleet, 2, serverArgs));
      int nextServer = 3;
      long serversUp = System.currentTimeMillis();

      Map<String, Integer> cost = new TreeMap<>(); // every task ever created -> its cost (never changed here)
      Set<String> live = new TreeSet<>();
      Set<String> deleted = new TreeSet<>();
      Set<String> stable = new TreeSet<>(); // never deleted nor updated: their gaps are measured
      for (int i = 0; i < TASKS; i++) {
        String name = "obs-" + i;
        int c = i % 10 == 0 ? 2 : 1;
        create(servers, pool, name, c, 0);
        cost.put(name, c);
        live.add(name);
        if (i % 2 == 0) {
          stable.add(name);
        }
      }
      long created = System.currentTimeMillis();
      Fleet.Worker[] w = new Fleet.Worker[WORKERS];
      int[] incarnation = new int[WORKERS];
      int[] ports = new int[WORKERS];
      for (int i = 0; i < WORKERS; i++) {
        ports[i] = Ports.free();
        w[i] = fleet.startWorker(i, 0, ports[i], "--capacity", Integer.toString(CAPACITY));
      }
      Awaitility.await("every task running once").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
          .until(() -> fleet.everyUnitRunningOnce(live));
      System.out.printf("task chaos on %s: set-up: two servers %d ms, %d creates %d ms, workers started and every task"
          + " running %d ms later%n", storeKind, serversUp - setUp, TASKS, created - serversUp,
          System.currentTimeMillis() - created);

      Map<Action, Integer> done = new EnumMap<>(Action.class);
      long[] restartAt = new long[WORKERS];
      long[] resumeAt = new long[WORKERS];
      long serverBackAt = 0;
      List<long[]> serverDown = new ArrayList<>(); // [from, to] while a distributor was down or paused
      Server downServer = null;
      long serverOutage = 0;
      boolean serverPaused = false;
      int nextTask = TASKS;
      int revision = 0;
      long end = System.currentTimeMillis() + SECONDS * 1000L;
      long nextAction = System.currentTimeMillis() + 500;
      while (System.currentTimeMillis() < end) {
        long now = System.currentTimeMillis();
        for (int i = 0; i < WORKERS; i++) {
          if (restartAt[i] != 0 && now >= restartAt[i]) {
            restartAt[i] = 0;
            w[i] = fleet.startWorker(i, ++incarnation[i], ports[i], "--capacity", Integer.toString(CAPACITY));
          }
          if (resumeAt[i] != 0 && now >= resumeAt[i]) {
            resumeAt[i] = 0;
            w[i].resume();
          }
        }
        if (downServer != null && now >= serverBackAt) {
          serverDown.add(new long[] {serverBackAt - serverOutage, now});
          if (serverPaused) {
            Signals.send(downServer.process(), Signals.Signal.CONT);
          } else {
            servers.remove(downServer);
            servers.add(startServer(fleet, nextServer++, serverArgs));
          }
          downServer = null;
        }
        if (now >= nextAction) {
          nextAction = now + 300 + rnd.nextInt(700);
          boolean workersHealthy = IntStream.range(0, WORKERS).allMatch(i -> restartAt[i] == 0 && resumeAt[i] == 0);
          Action a = Action.values()[rnd.nextInt(Action.values().length)];
          int i = rnd.nextInt(WORKERS);
          switch (a) {
            case KILL_WORKER -> {
              if (workersHealthy) {
                w[i].kill();
                restartAt[i] = now + 300 + rnd.nextInt(2000);
                count(done, a);
              }
            }
            case PAUSE_WORKER -> {
              if (workersHealthy) {
                w[i].pause();
                resumeAt[i] = now + 1800 + rnd.nextInt(2500); // longer than the lease (1 s; 1.5 s before issue 22)
                count(done, a);
              }
            }
            case KILL_DISTRIBUTOR, PAUSE_DISTRIBUTOR -> {
              if (downServer == null) {
                downServer = servers.get(0); // the oldest: most likely the leader
                serverPaused = a == Action.PAUSE_DISTRIBUTOR;
                if (serverPaused) {
                  Signals.send(downServer.process(), Signals.Signal.STOP);
                } else {
                  downServer.process().destroyForcibly();
                }
                serverOutage = 1000 + rnd.nextInt(3000);
                serverBackAt = now + serverOutage;
                count(done, a);
              }
            }
            case CREATE -> {
              String name = "new-" + nextTask++;
              int c = 1 + rnd.nextInt(2);
              create(available(servers, downServer), pool, name, c, 0);
              cost.put(name, c);
              live.add(name);
              count(done, a);
            }
            case UPDATE -> {
              List<String> some = new ArrayList<>(live);
              some.removeAll(stable);
              if (!some.isEmpty()) {
                String name = some.get(rnd.nextInt(some.size()));
                update(available(servers, downServer), pool, name, ++revision);
                count(done, a);
              }
            }
            case DELETE -> {
              List<String> some = new ArrayList<>(live);
              some.removeAll(stable);
              if (!some.isEmpty()) {
                String name = some.get(rnd.nextInt(some.size()));
                delete(available(servers, downServer), pool, name);
                live.remove(name);
                deleted.add(name);
                count(done, a);
              }
            }
          }
        }
        Thread.sleep(20); // the chaos driver's clock tick (its actions are due at times), not a wait for a result
      }
      // end of chaos: everyone back
      FleetChecks.bringBack(w, resumeAt, restartAt,
          i -> fleet.startWorker(i, ++incarnation[i], ports[i], "--capacity", Integer.toString(CAPACITY)));
      if (downServer != null) {
        serverDown.add(new long[] {serverBackAt - serverOutage, System.currentTimeMillis()});
        if (serverPaused) {
          Signals.send(downServer.process(), Signals.Signal.CONT);
        } else {
          servers.remove(downServer);
          servers.add(startServer(fleet, nextServer, serverArgs));
        }
      }
      long chaosEnd = System.currentTimeMillis();
      Awaitility.await("every live task running once, no deleted one running").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250)).until(() -> fleet.everyUnitRunningOnce(live));
      long converged = System.currentTimeMillis();
      Awaitility.await("the API shows every live task Processing on its owner and every deleted one Deleted")
          .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
          .until(() -> statusesAgree(servers, pool, fleet, live, deleted));
      System.out.printf("task chaos on %s: after the chaos, every task ran once again after %d ms and the API agreed"
          + " after %d ms%n", storeKind, converged - chaosEnd, System.currentTimeMillis() - chaosEnd);

      for (Fleet.Worker x : w) {
        assertThat(x.terminate(30_000)).as("worker %s stops on SIGTERM", x).isTrue();
      }
      long endOfRun = System.currentTimeMillis();
      OverlapChecker.Report r = OverlapChecker.check(fleet.eventFiles(), fleet.killedAt(), endOfRun);
      // a gap that overlaps a distributor's outage (plus the standby's takeover, up to its 2 s leader lease) waited
      // for the control plane, not for the failover of a worker: reported apart
      List<Long> gaps = new ArrayList<>();
      List<Long> gapsDuringDistributorOutage = new ArrayList<>();
      r.byUnit().forEach((unit, list) -> {
        if (!stable.contains(unit)) {
          return;
        }
        List<OverlapChecker.Interval> sorted = list.stream()
            .sorted(Comparator.comparingLong(OverlapChecker.Interval::start)).toList();
        for (int k = 1; k < sorted.size(); k++) {
          long from = sorted.get(k - 1).end();
          long to = sorted.get(k).start();
          boolean control = serverDown.stream().anyMatch(d -> from <= d[1] + 2000 && to >= d[0]);
          (control ? gapsDuringDistributorOutage : gaps).add(Math.max(0, to - from));
        }
      });
      gaps.sort(null);
      gapsDuringDistributorOutage.sort(null);
      Map<String, Long> peak = peakCost(r, cost);
      System.out.printf("task chaos on %s: actions %s; %d tasks created, %d deleted; %d ownership intervals, %d"
          + " incarnations; overlaps: %d; problems: %d; peak cost per incarnation (capacity %d): max %d%n", storeKind,
          done, cost.size(), deleted.size(), r.intervals(), fleet.eventFiles().size(), r.overlaps().size(),
          r.problems().size(), CAPACITY, peak.values().stream().mapToLong(Long::longValue).max().orElse(0));
      System.out.printf("task chaos on %s: gaps between owners of a task (worker failover), n=%d: p50 %d ms, p99 %d ms,"
          + " max %d ms; gaps overlapping a distributor outage, n=%d: p50 %d ms, p99 %d ms, max %d ms%n",
          storeKind, gaps.size(), SoakTest.pct(gaps, 50), SoakTest.pct(gaps, 99), SoakTest.pct(gaps, 100),
          gapsDuringDistributorOutage.size(), SoakTest.pct(gapsDuringDistributorOutage, 50),
          SoakTest.pct(gapsDuringDistributorOutage, 99), SoakTest.pct(gapsDuringDistributorOutage, 100));
      if (!r.clean()) {
        FleetChecks.keepLogs(fleet, "task-chaos-" + storeKind + "-" + seed);
      }
      assertThat(r.overlaps()).as("overlapping owners").isEmpty();
      assertThat(r.problems()).as("event log problems").isEmpty();
      assertThat(peak).allSatisfy((label, p) -> assertThat(p).as("peak cost of %s", label).isLessThanOrEqualTo(CAPACITY));
      assertThat(done.getOrDefault(Action.KILL_WORKER, 0) + done.getOrDefault(Action.PAUSE_WORKER, 0))
          .as("chaos happened").isPositive();
      assertThat(SoakTest.pct(gaps, 100)).as("a task stayed unowned longer than the failover bound")
          .isLessThanOrEqualTo(MAX_GAP_MILLIS);
    }
  }

  private static void count(Map<Action, Integer> done, Action a) {
    done.merge(a, 1, Integer::sum);
  }

  /** The highest summed cost of tasks one incarnation ran at once, by incarnation (a sweep over its intervals). */
  static Map<String, Long> peakCost(OverlapChecker.Report r, Map<String, Integer> cost) {
    Map<String, List<long[]>> events = new HashMap<>(); // owner -> (time, +cost | -cost)
    r.byUnit().forEach((unit, list) -> {
      for (OverlapChecker.Interval iv : list) {
        int c = cost.getOrDefault(unit, 1);
        events.computeIfAbsent(iv.owner(), k -> new ArrayList<>()).add(new long[] {iv.start(), c});
        events.computeIfAbsent(iv.owner(), k -> new ArrayList<>()).add(new long[] {iv.end(), -c});
      }
    });
    Map<String, Long> out = new TreeMap<>();
    events.forEach((owner, list) -> {
      // ends before starts at the same millisecond: a stop logged in the millisecond of the next start freed its room
      list.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
      long load = 0;
      long max = 0;
      for (long[] e : list) {
        load += e[1];
        max = Math.max(max, load);
      }
      out.put(owner, max);
    });
    return out;
  }

  // ------------------------------------------------------------------ the API, as an operator would use it

  private Server startServer(Fleet fleet, int n, String... args) throws IOException {
    Process p = fleet.startDistributor(args);
    String out = n == 1 ? "distributor.out" : "distributor-" + n + ".out";
    Pattern port = Pattern.compile("metrics on :(\\d+)/metrics");
    int[] found = {0};
    Awaitility.await("server " + n + " listening").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .until(() -> {
          Path f = fleet.dir().resolve(out);
          if (!Files.exists(f)) {
            return false;
          }
          Matcher m = port.matcher(Files.readString(f, StandardCharsets.UTF_8));
          if (m.find()) {
            found[0] = Integer.parseInt(m.group(1));
            return true;
          }
          return false;
        });
    return new Server(p, out, found[0]);
  }

  private static List<Server> available(List<Server> servers, Server down) {
    List<Server> out = new ArrayList<>(servers);
    out.remove(down);
    return out;
  }

  /** Sends {@code request} to the first server that answers; retried on another while one is down. */
  private HttpResponse<String> send(List<Server> servers, String method, String path, String body) {
    RuntimeException last = null;
    for (int attempt = 0; attempt < 20; attempt++) {
      for (Server s : servers) {
        if (!s.process().isAlive()) {
          continue;
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
            .timeout(Duration.ofSeconds(5)).header("Authorization", "Bearer " + TOKEN)
            .header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
          HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() < 500) {
            return r;
          }
          last = new IllegalStateException(method + " " + path + ": " + r.statusCode() + " " + r.body());
        } catch (IOException e) {
          last = new IllegalStateException(method + " " + path + " on :" + s.port() + ": " + e, e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
    throw last != null ? last : new IllegalStateException("no server to send " + method + " " + path + " to");
  }

  private void create(List<Server> servers, String pool, String name, int cost, int rev) {
    HttpResponse<String> r = send(servers, "POST", "/api/v1/pools/" + pool + "/tasks",
        "{\"name\":\"" + name + "\",\"args\":{\"feed\":\"" + name + "\",\"rev\":" + rev + "},\"cost\":" + cost + "}");
    assertThat(r.statusCode()).as("create %s: %s", name, r.body()).isIn(200, 201);
  }

  private void update(List<Server> servers, String pool, String name, int rev) {
    HttpResponse<String> r = send(servers, "PUT", "/api/v1/pools/" + pool + "/tasks/" + name,
        "{\"args\":{\"feed\":\"" + name + "\",\"rev\":" + rev + "}}");
    assertThat(r.statusCode()).as("update %s: %s", name, r.body()).isEqualTo(200);
  }

  private void delete(List<Server> servers, String pool, String name) {
    HttpResponse<String> r = send(servers, "DELETE", "/api/v1/pools/" + pool + "/tasks/" + name, null);
    assertThat(r.statusCode()).as("delete %s: %s", name, r.body()).isEqualTo(202);
  }

  /**
   * True when the API lists every live task {@code Processing} on the member the event files show running it, and
   * every deleted one {@code Deleted} (stopped everywhere).
   */
  private boolean statusesAgree(List<Server> servers, String pool, Fleet fleet, Set<String> live,
      Set<String> deleted) throws IOException {
    HttpResponse<String> r = send(servers, "GET", "/api/v1/pools/" + pool + "/tasks", null);
    if (r.statusCode() != 200) {
      return false;
    }
    Map<String, String> runningOn = new HashMap<>();
    fleet.running().forEach((unit, labels) -> {
      if (labels.size() == 1) {
        runningOn.put(unit, fleet.memberOf(labels.get(0)));
      }
    });
    JsonNode root = JSON.readTree(r.body());
    JsonNode tasks = root.isArray() ? root : root.path("tasks");
    Map<String, JsonNode> byName = new HashMap<>();
    tasks.forEach(t -> byName.put(t.path("name").asText(), t));
    Set<String> wrong = new HashSet<>();
    for (String name : live) {
      JsonNode t = byName.get(name);
      if (t == null || !"Processing".equals(t.path("status").asText())
          || !t.path("owner").asText().equals(runningOn.get(name))) {
        wrong.add(name);
      }
    }
    for (String name : deleted) {
      JsonNode t = byName.get(name);
      if (t != null && !"Deleted".equals(t.path("status").asText())) {
        wrong.add(name);
      }
    }
    return wrong.isEmpty();
  }
}
