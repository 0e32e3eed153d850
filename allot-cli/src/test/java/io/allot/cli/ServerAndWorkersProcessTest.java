package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.assign.TableCodec;
import io.allot.store.Store;
import io.allot.store.Stores;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot server} and {@code allot worker} processes on the local Redis, for what issue 8 found by hand:
 * <ul>
 *   <li>a new user's first try, {@code allot server -remove-dead -down-after 1 -ping-timeout 200ms} with two freshly
 *   started workers: the distributor pinged them, a first ping over a cold channel missed its 200 ms deadline, and
 *   both were removed from the list at once. Registered workers are judged by their lease now: they stay listed and
 *   get their units (the names hold ':', as Redis names often do);</li>
 *   <li>{@code release UNIT} on a worker's standard input: the run stops (its {@code stop} line), is released with a
 *   hold, and the distributor gives the unit to the other worker at once, instead of leaving it with the worker that
 *   declined it (which does not claim it again during its 30 s hold: the unit ran nowhere meanwhile).</li>
 * </ul>
 */
class ServerAndWorkersProcessTest {
  static final String REDIS = "redis://127.0.0.1:6379";
  final List<Process> processes = new ArrayList<>();
  @TempDir Path dir;
  // this test's keys, with ':' as Redis names often have
  final String prefix = "app:" + UUID.randomUUID().toString().substring(0, 8) + ":";
  final String pool = prefix + "robots:list";
  final String units = prefix + "channels";
  final String table = prefix + "matching:table";

  @AfterEach
  void stop() throws InterruptedException {
    for (Process p : processes) {
      p.destroyForcibly();
      p.waitFor(20, TimeUnit.SECONDS);
    }
    try (Store store = Stores.open(REDIS)) {
      store.seedKeys().replaceList(units, List.of());
    }
  }

  Process start(String... args) throws IOException {
    Process p = ServerProcessTest.allot(args).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    processes.add(p);
    return p;
  }

  @Test
  void freshWorkersStayListedAndGetTheirUnitsUnderRemoveDead() throws Exception {
    try (Store store = Stores.open(REDIS)) {
      store.seedKeys().replaceList(units, List.of("u1", "u2", "u3", "u4", "u5", "u6"));
      start("server", "-store", REDIS, "-remove-dead", "-down-after", "1", "-ping-timeout", "200ms", "-prom-port", "0",
          "-services-namespaces", pool, "-workunits-namespace", units, "-distribution-namespace", table);
      for (int i = 0; i < 2; i++) {
        start("worker", "--pool", pool, "--port", "0", "--host", "127.0.0.1", "-store", REDIS,
            "--distribution-namespace", table);
      }
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> store.membership(pool).members().size() == 2);
      Set<String> workers = store.membership(pool).members().keySet();
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> bothListedWithUnits(store, pool, table, workers));
      // and they stay: several rounds of the distributor later, nobody was removed
      Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
          .until(() -> bothListedWithUnits(store, pool, table, workers));
    }
  }

  static boolean bothListedWithUnits(Store store, String pool, String table, Set<String> workers) {
    Map<String, String> t = store.tables().read(table);
    return store.seedKeys().list(pool).containsAll(workers)
        && workers.stream().allMatch(w -> !TableCodec.decode(t.get(w)).isEmpty());
  }

  /** The units a worker runs now, from its event file: started and not stopped since. */
  static Set<String> running(Path events) {
    Set<String> out = new LinkedHashSet<>();
    for (String line : lines(events)) {
      String[] f = line.split(" ");
      if (f.length >= 3 && f[1].equals("start")) {
        out.add(f[2]);
      } else if (f.length >= 3 && f[1].equals("stop")) {
        out.remove(f[2]);
      } else if (f.length >= 2 && f[1].equals("lease-lost")) {
        out.clear();
      }
    }
    return out;
  }

  static List<String> lines(Path events) {
    try {
      return Files.exists(events) ? Files.readAllLines(events) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aReleasedUnitGoesToTheOtherWorkerAtOnce() throws Exception {
    Path eventsA = dir.resolve("a.events");
    Path eventsB = dir.resolve("b.events");
    try (Store store = Stores.open(REDIS)) {
      store.seedKeys().replaceList(units, List.of("u1", "u2", "u3", "u4", "u5", "u6"));
      start("server", "-store", REDIS, "-prom-port", "0", "-poll-interval", "250ms", "-ping-timeout", "250ms",
          "-services-namespaces", pool, "-workunits-namespace", units, "-distribution-namespace", table);
      Process a = start("worker", "--pool", pool, "--port", "0", "--host", "127.0.0.1", "-store", REDIS,
          "--distribution-namespace", table, "--events", eventsA.toString());
      start("worker", "--pool", pool, "--port", "0", "--host", "127.0.0.1", "-store", REDIS,
          "--distribution-namespace", table, "--events", eventsB.toString());
      Awaitility.await().atMost(Duration.ofSeconds(60))
          .until(() -> !running(eventsA).isEmpty() && !running(eventsB).isEmpty()
              && running(eventsA).size() + running(eventsB).size() == 6);
      String unit = running(eventsA).iterator().next();
      String memberA = memberOf(store, table, unit);
      String memberB = store.membership(pool).members().keySet().stream().filter(id -> !id.equals(memberA))
          .findFirst().orElseThrow();
      OutputStream stdin = a.getOutputStream();
      stdin.write(("release " + unit + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
      // well within the 30 s hold: the table moved the unit, and the other worker runs it
      Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> running(eventsB).contains(unit));
      assertThat(running(eventsA)).doesNotContain(unit);
      assertThat(lines(eventsA)).anyMatch(l -> l.endsWith(" stop " + unit));
      assertThat(store.tables().units(table, memberB)).contains(unit);
    }
  }

  /** The member the published table gives {@code unit} to. */
  static String memberOf(Store store, String table, String unit) {
    return store.tables().read(table).entrySet().stream()
        .filter(e -> TableCodec.decode(e.getValue()).contains(unit)).map(Map.Entry::getKey)
        .findFirst().orElse("");
  }
}
