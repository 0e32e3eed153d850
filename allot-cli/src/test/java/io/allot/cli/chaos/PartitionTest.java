package io.allot.cli.chaos;

import static io.allot.cli.chaos.FleetChecks.awaitEveryUnitRunningOnce;
import static io.allot.cli.chaos.FleetChecks.awaitEveryWorkerHasUnits;
import static io.allot.cli.chaos.FleetChecks.awaitFenced;
import static io.allot.cli.chaos.FleetChecks.lastFence;
import static io.allot.cli.chaos.FleetChecks.leaseLosses;
import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.Tables;
import io.allot.testkit.NetNamespace;
import io.allot.testkit.Ports;
import io.allot.testkit.PostgresServer;
import io.allot.testkit.RedisServer;
import io.allot.testkit.fleet.Fleet;
import io.allot.testkit.overlap.EventFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Partitions, not only crashes: one {@code allot} process runs in a network namespace the test makes
 * ({@link NetNamespace}: a veth pair on a private /30 of 10.203.0.0/16), and the link is cut (the host's end taken
 * down: TCP connections hang, nothing is refused) for longer than the lease, then restored. The store (a throwaway
 * server listening on 127.0.0.1 and the host's end of the link) and the other processes run on the host; traffic goes
 * only to loopback and the namespace's link.
 *
 * <ul>
 *   <li>A cut worker stops every unit (its lease-lost time) before any other member starts one of them (the event
 *       files carry epoch millis of this one machine's clock), within its lease after the cut; the others take its
 *       units; when the link returns it rejoins and runs units again, every unit once. On Redis and PostgreSQL.
 *   <li>A distributor cut off from the store: the workers keep running their units (the table is only a wish), a
 *       standby distributor on the host takes over leadership (and places a unit added meanwhile), and when the
 *       link returns the old leader stays a standby.
 * </ul>
 * No unit ever has two owners. The figures printed: fence time after the cut, when the others started the cut
 * worker's units, takeover and recovery times, intervals and overlaps.
 *
 * <p>Making namespaces needs root and iproute2's {@code ip}: where they are missing, the tests fail on CI
 * ({@code $CI} set) and are skipped elsewhere, with the reason. {@code -Dallot.partition.cuts=N} (default 1) cuts the
 * worker's link N times; {@code -Dallot.partition.cutMillis=M} (default 4000) is the least time each cut lasts.
 */
class PartitionTest {
  static final long LEASE_TTL_MILLIS = 1500; // the worker default
  static final int UNITS = 24;
  static final int CUTS = Integer.getInteger("allot.partition.cuts", 1);
  static final long CUT_MILLIS = Long.getLong("allot.partition.cutMillis", 4000);
  static final long LEADER_TTL_MILLIS = 2000;
  static final String[] DISTRIBUTOR_FLAGS = {"-poll-interval", "250ms", "-ping-timeout", "250ms", "-leader-ttl",
      LEADER_TTL_MILLIS + "ms"};

  @TempDir Path dir;

  @BeforeAll
  static void namespacesCanBeMade() {
    NetNamespace.unavailable().ifPresent(why -> {
      if (System.getenv("CI") != null) {
        throw new AssertionError("the partition tests need network namespaces on CI: " + why);
      }
      Assumptions.abort("partition tests skipped: network namespaces cannot be made here: " + why);
    });
  }

  /** A throwaway store reachable from the host ({@code hostUri}) and from the namespace ({@code innerUri}). */
  private record Server(AutoCloseable server, String hostUri, String innerUri) implements AutoCloseable {
    static Server of(String kind, NetNamespace ns) {
      if (kind.equals("redis")) {
        // protected mode admits clients from the namespace's address only with a password
        RedisServer r = RedisServer.builder().alsoListenOn(ns.hostAddress()).password("partition").start();
        return new Server(r, r.uri(), r.uriAt(ns.hostAddress()));
      }
      PostgresServer pg = PostgresServer.builder().alsoListenOn(ns.hostAddress()).trustClients(ns.subnet()).start();
      return new Server(pg, pg.uri(), pg.uriAt(ns.hostAddress()));
    }

    /** Where a process in the namespace runs, advertising the namespace's address. */
    Fleet.Placement inside(NetNamespace ns) {
      return new Fleet.Placement(ns.commandPrefix(), ns.innerAddress(), List.of("-store", innerUri));
    }

    @Override
    public void close() throws Exception {
      server.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"redis", "postgresql"})
  void aCutWorkerStopsItsUnitsBeforeAnyoneElseGetsThemAndRejoinsWhenTheLinkReturns(String kind) throws Exception {
    List<String> units = IntStream.range(0, UNITS).mapToObj(i -> "u" + i).toList();
    String name = "partition of a worker (" + kind + ")";
    try (NetNamespace ns = NetNamespace.create();
        Server server = Server.of(kind, ns);
        Fleet fleet = Fleet.builder(dir).storeArgs("-store", server.hostUri()).prefix("cut-").build()) {
      FleetChecks.keepingLogsOnFailure(fleet, name, () -> {
        try (Store store = Stores.open(server.hostUri())) {
          store.seedKeys().replaceList(fleet.unitsKey(), units);
        }
        fleet.startDistributor(DISTRIBUTOR_FLAGS);
        List<Fleet.Worker> workers = new ArrayList<>();
        workers.add(fleet.startWorker(0, 0, Ports.free()));
        workers.add(fleet.startWorker(1, 0, Ports.free()));
        Fleet.Worker cut = fleet.startWorker(server.inside(ns), 2, 0, Ports.free());
        workers.add(cut);
        List<String> others = List.of(workers.get(0).label(), workers.get(1).label());
        awaitEveryUnitRunningOnce(fleet, units);
        awaitEveryWorkerHasUnits(fleet, workers.size());

        for (int round = 1; round <= CUTS; round++) {
          Set<String> cutUnits = cut.units();
          assertThat(cutUnits).as("the worker in the namespace runs units before the cut").isNotEmpty();
          Map<String, Integer> fences = leaseLosses(fleet);
          long cutAt = System.currentTimeMillis();
          ns.cut();
          awaitFenced(fleet, fences, List.of(cut.label()));
          long fencedAt = lastFence(fleet, cut.label());
          assertThat(fencedAt).as("the cut worker fences within its lease after the cut")
              .isLessThanOrEqualTo(cutAt + LEASE_TTL_MILLIS);
          awaitEveryUnitRunningOnce(fleet, units); // on the others
          long takenAfter = System.currentTimeMillis() - cutAt;
          // keep the link down for a while, and the cut worker runs nothing meanwhile
          long hold = Math.max(0, cutAt + CUT_MILLIS - System.currentTimeMillis());
          Awaitility.await("the cut worker runs nothing while cut").during(Duration.ofMillis(hold))
              .atMost(Duration.ofMillis(hold + 5000)).pollInterval(Duration.ofMillis(50))
              .until(() -> cut.units().isEmpty());

          Map<String, Long> starts = FleetChecks.firstStartsSince(fleet, others, cutAt);
          assertThat(starts.keySet()).as("the others took every unit of the cut worker").containsAll(cutUnits);
          long firstTaken = Long.MAX_VALUE;
          for (String unit : cutUnits) {
            assertThat(starts.get(unit)).as("%s started elsewhere vs the cut worker's fence at %d", unit, fencedAt)
                .isGreaterThanOrEqualTo(fencedAt);
            firstTaken = Math.min(firstTaken, starts.get(unit));
          }

          long restoredAt = System.currentTimeMillis();
          ns.restore();
          Awaitility.await("the cut worker runs units again, every unit once").atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofMillis(50))
              .until(() -> fleet.everyUnitRunningOnce(units) && !cut.units().isEmpty());
          long recoveredAfter = System.currentTimeMillis() - restoredAt;
          System.out.printf("%s, cut %d of %d: %d units on the cut worker; it fenced %d ms after the cut (lease %d ms);"
                  + " the first of them started elsewhere %d ms after the cut (%d ms after the fence), all %d units"
                  + " running on the others %d ms after the cut; link down %d ms; after the restore the cut worker ran"
                  + " units again and every unit once within %d ms%n", name, round, CUTS, cutUnits.size(),
              fencedAt - cutAt, LEASE_TTL_MILLIS, firstTaken - cutAt, firstTaken - fencedAt, units.size(), takenAfter,
              restoredAt - cutAt, recoveredAfter);
          awaitEveryWorkerHasUnits(fleet, workers.size());
        }
        for (Fleet.Worker w : workers) {
          assertThat(w.terminate(30_000)).as("%s stops on SIGTERM", w).isTrue();
        }
        FleetChecks.assertNoOverlaps(fleet, name);
      });
    }
  }

  @Test
  void aDistributorCutOffFromTheStoreIsReplacedWhileTheWorkersKeepRunning() throws Exception {
    List<String> units = IntStream.range(0, UNITS).mapToObj(i -> "u" + i).toList();
    String name = "partition of the distributor (redis)";
    try (NetNamespace ns = NetNamespace.create();
        Server server = Server.of("redis", ns);
        Fleet fleet = Fleet.builder(dir).storeArgs("-store", server.hostUri()).prefix("cutd-").build();
        Store store = Stores.open(server.hostUri())) {
      FleetChecks.keepingLogsOnFailure(fleet, name, () -> {
        store.seedKeys().replaceList(fleet.unitsKey(), units);
        String leaseName = Tables.leaseName(fleet.tableKey(), fleet.pool());
        Process leader = fleet.startDistributor(server.inside(ns), DISTRIBUTOR_FLAGS);
        List<Fleet.Worker> workers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          workers.add(fleet.startWorker(i, 0, Ports.free()));
        }
        awaitEveryUnitRunningOnce(fleet, units);
        awaitEveryWorkerHasUnits(fleet, workers.size());
        awaitLeader(store, leaseName, leader);
        Process standby = fleet.startDistributor(DISTRIBUTOR_FLAGS);
        Path standbyOut = fleet.dir().resolve("distributor-2.out");
        Awaitility.await("the standby distributor is up").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> Files.exists(standbyOut) && Files.readString(standbyOut).contains("distributor started"));
        assertThat(holder(store, leaseName)).as("the standby waits").startsWith(leader.pid() + "@");

        Map<String, List<String>> before = fleet.running();
        Map<String, Integer> fences = leaseLosses(fleet);
        long cutAt = System.currentTimeMillis();
        ns.cut();
        awaitLeader(store, leaseName, standby);
        long takeoverAfter = System.currentTimeMillis() - cutAt;
        // nobody led for a while, then the standby computed its table: the workers keep running their units
        long hold = Math.max(LEADER_TTL_MILLIS, cutAt + CUT_MILLIS - System.currentTimeMillis());
        Awaitility.await("the standby leads and the workers keep running their units").during(Duration.ofMillis(hold))
            .atMost(Duration.ofMillis(hold + 5000)).pollInterval(Duration.ofMillis(50))
            .until(() -> holder(store, leaseName).startsWith(standby.pid() + "@") && fleet.running().equals(before));
        assertThat(stopsSince(fleet, cutAt)).as("units stopped while the distributor was cut off").isEmpty();

        // the new leader works: a unit added now is placed and started (others may move for it: the new table's wish)
        List<String> more = new ArrayList<>(units);
        more.add("added");
        long addedAt = System.currentTimeMillis();
        store.seedKeys().replaceList(fleet.unitsKey(), more);
        awaitEveryUnitRunningOnce(fleet, more);
        long placedAfter = System.currentTimeMillis() - addedAt;
        assertThat(leaseLosses(fleet)).as("no worker fenced").isEqualTo(fences);

        long restoredAt = System.currentTimeMillis();
        ns.restore();
        long settle = 2 * LEADER_TTL_MILLIS;
        Awaitility.await("the old leader, back, stays a standby").during(Duration.ofMillis(settle))
            .atMost(Duration.ofMillis(settle + 5000)).pollInterval(Duration.ofMillis(50))
            .until(() -> leader.isAlive() && holder(store, leaseName).startsWith(standby.pid() + "@"));
        awaitEveryUnitRunningOnce(fleet, more);
        System.out.printf("%s: the standby led %d ms after the cut (leader lease %d ms); no unit stopped and no"
                + " worker fenced (%d ms watched); a unit added then ran within %d ms; link down %d ms; the old leader"
                + " stayed a standby for %d ms after the restore%n", name, takeoverAfter, LEADER_TTL_MILLIS,
            addedAt - cutAt, placedAfter, restoredAt - cutAt, settle);
        for (Fleet.Worker w : workers) {
          assertThat(w.terminate(30_000)).as("%s stops on SIGTERM", w).isTrue();
        }
        FleetChecks.assertNoOverlaps(fleet, name);
      });
    }
  }

  private static void awaitLeader(Store store, String leaseName, Process distributor) {
    Awaitility.await("distributor " + distributor.pid() + " leads").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> holder(store, leaseName).startsWith(distributor.pid() + "@"));
  }

  /** The leadership holder ({@code pid@host/id} for a distributor), or "" if nobody leads. */
  private static String holder(Store store, String leaseName) {
    return store.leadership().current(leaseName).map(Lease::holder).orElse("");
  }

  /** Units with a stop line at or after {@code since} in any event file. */
  private static Set<String> stopsSince(Fleet fleet, long since) {
    Set<String> out = new HashSet<>();
    for (Path file : fleet.eventFiles().values()) {
      EventFile.read(file).events().stream()
          .filter(e -> e.kind() == EventFile.LineKind.STOP && e.millis() >= since)
          .forEach(e -> out.add(e.unit()));
    }
    return out;
  }
}
