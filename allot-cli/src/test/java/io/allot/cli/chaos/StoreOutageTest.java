package io.allot.cli.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.redis.RedisStore;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store goes away for longer than the lease, twice: frozen (SIGSTOP: connections hang, as in a partition) and
 * shut down then restarted on the same port (its data kept in an append-only file). Each time every worker must stop
 * all its units by itself within the lease; when the store is back, work resumes with every unit running once,
 * nothing is lost and no unit ever had two owners.
 */
class StoreOutageTest {
  static final long LEASE_TTL_MILLIS = 1500; // the worker default
  static final int UNITS = 30;

  @TempDir Path dir;

  @Test
  void workersStopWithinTheLeaseWhileTheStoreIsDownAndResumeWithoutOverlap() throws Exception {
    Path redisDir = Files.createDirectories(dir.resolve("redis"));
    int port = Fleet.freePort();
    List<String> units = IntStream.range(0, UNITS).mapToObj(i -> "u" + i).toList();
    Process redis = startRedis(port, redisDir);
    try (Fleet fleet = new Fleet(dir, List.of("-store", "redis", "-redis-addrs", "127.0.0.1:" + port), "outage-")) {
      try (Store store = RedisStore.connect("127.0.0.1:" + port)) {
        store.replaceList(fleet.unitsKey(), units);
      }
      fleet.startDistributor("-poll-interval", "250ms", "-ping-timeout", "250ms");
      List<Fleet.Worker> workers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        workers.add(fleet.startWorker(i, 0, Fleet.freePort()));
      }
      awaitEveryUnitRunningOnce(fleet, units);
      awaitEveryWorkerHasUnits(fleet, workers.size());

      // 1. frozen store
      Map<String, Integer> fences = leaseLosses(fleet);
      Fleet.signal(redis, "STOP");
      long frozenAt = System.currentTimeMillis();
      awaitEveryWorkerFenced(fleet, fences);
      assertThat(fleet.running()).isEmpty();
      long stoppedAfter = System.currentTimeMillis() - frozenAt;
      assertFencedWithinTheLease(fleet, frozenAt);
      awaitNothingRunsWhileDown(fleet);
      Fleet.signal(redis, "CONT");
      long backAt = System.currentTimeMillis();
      awaitEveryUnitRunningOnce(fleet, units);
      long resumedAfter = System.currentTimeMillis() - backAt;
      awaitEveryWorkerHasUnits(fleet, workers.size()); // so that each has a lease to lose in the next outage
      System.out.printf("store frozen: every unit stopped %d ms after the freeze (fence deadlines <= freeze + %d ms);"
          + " all running again %d ms after it came back%n", stoppedAfter, LEASE_TTL_MILLIS, resumedAfter);

      // 2. store shut down, then restarted on the same port with its data
      fences = leaseLosses(fleet);
      redis.destroy(); // SIGTERM: redis-server saves and exits
      assertThat(redis.waitFor(30, TimeUnit.SECONDS)).isTrue();
      long downAt = System.currentTimeMillis();
      awaitEveryWorkerFenced(fleet, fences);
      assertThat(fleet.running()).isEmpty();
      stoppedAfter = System.currentTimeMillis() - downAt;
      assertFencedWithinTheLease(fleet, downAt);
      awaitNothingRunsWhileDown(fleet);
      redis = startRedis(port, redisDir);
      backAt = System.currentTimeMillis();
      awaitEveryUnitRunningOnce(fleet, units);
      resumedAfter = System.currentTimeMillis() - backAt;
      System.out.printf("store restarted: every unit stopped %d ms after the shutdown; all running again %d ms after"
          + " the restart%n", stoppedAfter, resumedAfter);

      try (Store store = RedisStore.connect("127.0.0.1:" + port)) {
        assertThat(store.list(fleet.unitsKey())).as("nothing lost").containsExactlyElementsOf(units);
      }
      for (Fleet.Worker w : workers) {
        assertThat(w.terminate(30_000)).isTrue();
      }
      OverlapChecker.Report r = OverlapChecker.check(fleet.eventFiles(), fleet.killedAt(), System.currentTimeMillis());
      System.out.printf("store outage: %d ownership intervals, %d overlaps%n", r.intervals(), r.overlaps().size());
      assertThat(r.overlaps()).isEmpty();
      assertThat(r.problems()).isEmpty();
    } finally {
      if (redis.isAlive()) {
        Fleet.signal(redis, "CONT");
      }
      redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Every worker's last lease-lost line says it stopped trusting its lease no later than {@code since + ttl}. */
  private static void assertFencedWithinTheLease(Fleet fleet, long since) {
    for (String label : fleet.eventFiles().keySet()) {
      long fencedAt = fleet.leaseLostTimes(label).stream().mapToLong(Long::longValue).max()
          .orElseThrow(() -> new AssertionError(label + " never fenced"));
      assertThat(fencedAt).as("%s fence time vs outage start %d", label, since).isLessThanOrEqualTo(since + LEASE_TTL_MILLIS);
    }
  }

  /** The store stays down for twice the lease, and during all that time no worker runs anything. */
  private static void awaitNothingRunsWhileDown(Fleet fleet) {
    Awaitility.await("nothing runs while the store is down").during(Duration.ofMillis(2 * LEASE_TTL_MILLIS))
        .atMost(Duration.ofMillis(2 * LEASE_TTL_MILLIS + 5000)).pollInterval(Duration.ofMillis(50))
        .until(() -> fleet.running().isEmpty());
  }

  private static void awaitEveryWorkerHasUnits(Fleet fleet, int workers) {
    Awaitility.await("every worker has units").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> fleet.running().values().stream().flatMap(List::stream).distinct().count() == workers);
  }

  /** Lease-lost lines per incarnation so far. */
  private static Map<String, Integer> leaseLosses(Fleet fleet) {
    Map<String, Integer> out = new java.util.HashMap<>();
    for (String label : fleet.eventFiles().keySet()) {
      out.put(label, fleet.leaseLostTimes(label).size());
    }
    return out;
  }

  /** Every worker wrote a new lease-lost line (it fenced itself). */
  private static void awaitEveryWorkerFenced(Fleet fleet, Map<String, Integer> before) {
    Awaitility.await("every worker fenced itself").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> {
          Map<String, Integer> now = leaseLosses(fleet);
          return now.entrySet().stream().allMatch(e -> e.getValue() > before.getOrDefault(e.getKey(), 0));
        });
  }

  private static void awaitEveryUnitRunningOnce(Fleet fleet, List<String> units) {
    Awaitility.await("every unit running once").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
        .until(() -> fleet.everyUnitRunningOnce(units));
  }

  private static Process startRedis(int port, Path dir) throws IOException {
    Process p = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
        "--appendonly", "yes", "--appendfsync", "always", "--dir", dir.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis-" + System.nanoTime() + ".log").toFile()).start();
    Awaitility.await("redis-server on " + port).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
        .until(() -> {
          try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
          } catch (IOException e) {
            return false;
          }
        });
    return p;
  }
}
