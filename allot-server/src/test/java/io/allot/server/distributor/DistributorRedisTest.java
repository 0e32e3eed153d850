package io.allot.server.distributor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.core.assign.SeedRingAssigner;
import io.allot.core.model.Member;
import io.allot.server.dev.DemoMember;
import io.allot.server.ping.Pinger;
import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.testkit.RedisServer;
import io.allot.testkit.Signals.Signal;
import io.allot.testkit.Signals;
import io.allot.testkit.TestServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The distributor against a real Redis and real gRPC members: the shared server of {@link TestServers#redisUri()}
 * (every test under its own key prefix), a throwaway {@link RedisServer} where a test breaks its server or needs
 * settings of its own.
 */
class DistributorRedisTest {
  static final Duration POLL = Duration.ofMillis(200);
  static final Duration TIMEOUT = Duration.ofMillis(300);
  static final Duration TTL = Duration.ofMillis(1500);
  static final int K = 2;

  static String redisUri;
  static Store redis;
  String p; // key prefix of this test
  String pool;
  String unitsKey;
  String tableKey;
  final List<AutoCloseable> closeLater = new ArrayList<>();

  /**
   * Store URI {@code uri} with a short command timeout (the tests kill, pause and restart servers). The connect
   * timeout is 2 s: 500 ms failed a first connect on a loaded 2-core machine (load 30).
   */
  static String withShortTimeouts(String uri) {
    return uri + (uri.contains("?") ? "&" : "?") + "timeout=500ms&connect_timeout=2s";
  }

  @BeforeAll
  static void connect() {
    redisUri = TestServers.redisUri(); // the shared server is never killed: default timeouts
    redis = Stores.open(redisUri);
  }

  @AfterAll
  static void disconnect() {
    redis.close();
  }

  @BeforeEach
  void keys() {
    p = "test-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    pool = p + "services";
    unitsKey = p + "units";
    tableKey = p + "table";
  }

  @AfterEach
  void cleanup() throws Exception {
    for (int i = closeLater.size() - 1; i >= 0; i--) {
      closeLater.get(i).close();
    }
  }

  DistributorSettings settings(String strategy) {
    return new DistributorSettings(List.of(pool), unitsKey, tableKey, POLL, TIMEOUT, K, false, TTL, strategy, Pinger.Mode.AUTO);
  }

  DistributorServer server(Store store, String strategy, List<Long> epochs) {
    DistributorServer s =
        new DistributorServer(store, settings(strategy), new SimpleMeterRegistry(), (g, pub) -> {
          if (epochs != null) {
            epochs.add(pub.epoch());
          }
        });
    closeLater.add(s);
    return s.start();
  }

  DemoMember member(boolean health, boolean legacy, Store store) {
    DemoMember m = new DemoMember(0, health, legacy).start();
    closeLater.add(m);
    store.seedKeys().addToList(pool, m.address());
    return m;
  }

  /** Two health-pinged members in the pool and {@code n} units in the units list; returns the units. */
  List<String> twoMembersAndUnits(Store store, int n) {
    member(true, false, store);
    member(true, false, store);
    List<String> units = units(n);
    store.seedKeys().replaceList(unitsKey, units);
    return units;
  }

  List<String> units(int n) {
    List<String> u = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      u.add("unit-" + i);
    }
    return u;
  }

  static Map<String, List<String>> table(Store store, String key) {
    return new HashMap<>(store.tables().units(key));
  }

  static boolean covers(Map<String, List<String>> t, List<String> units) {
    List<String> all = new ArrayList<>();
    t.values().forEach(all::addAll);
    return all.size() == units.size() && new HashSet<>(all).equals(new HashSet<>(units));
  }

  @Test
  void seedRingTableIsTheOriginalsForLegacyOnlyMembers() {
    List<DemoMember> ms = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ms.add(member(false, true, redis)); // members that only know proto.GRPCPinger/Ping
    }
    List<String> units = units(23);
    redis.seedKeys().replaceList(unitsKey, units);
    server(redis, "seed-ring", null);
    Map<String, String> expected =
        new SeedRingAssigner().assign(ms.stream().map(m -> Member.of(m.address())).toList(), units).toDistributionHash();
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.tables().read(tableKey).equals(expected));
  }

  @Test
  void aKilledMemberLosesItsUnitsAndGetsThemBack() {
    List<DemoMember> ms = List.of(member(true, false, redis), member(true, true, redis), member(true, false, redis));
    List<String> units = units(30);
    redis.seedKeys().replaceList(unitsKey, units);
    // unbounded: "only the victim's units move" is exact there; with the load bound a member that becomes the
    // first choice of more units than its new bound may pass one of its own on (members are on random ports, so
    // whether the bound binds differs from run to run)
    server(redis, "rendezvous-unbounded", null);
    Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> covers(table(redis, tableKey), units) && table(redis, tableKey).values().stream().allMatch(l -> !l.isEmpty()));
    Map<String, List<String>> before = table(redis, tableKey);
    DemoMember victim = ms.get(1);
    long t0 = System.nanoTime();
    victim.stop();
    // bound: K x poll-interval + ping-timeout + one cycle, plus scheduling slack
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> table(redis, tableKey).get(victim.address()).isEmpty() && covers(table(redis, tableKey), units));
    long movedMs = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("units moved off the killed member after %d ms (bound K*poll+timeout+poll = %d ms)%n", movedMs,
        K * POLL.toMillis() + TIMEOUT.toMillis() + POLL.toMillis());
    // only the victim's units moved
    Map<String, List<String>> during = table(redis, tableKey);
    for (DemoMember m : ms) {
      if (m != victim) {
        assertThat(during.get(m.address())).containsAll(before.get(m.address()));
      }
    }
    victim.start();
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> table(redis, tableKey).equals(before));
  }

  @Test
  void theTableFollowsUnitsAddedAndRemoved() {
    List<String> units = twoMembersAndUnits(redis, 10);
    server(redis, "balanced", null);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> covers(table(redis, tableKey), units));
    List<String> more = new ArrayList<>(units.subList(3, 10));
    more.add("new-1");
    more.add("new-2");
    redis.seedKeys().replaceList(unitsKey, more);
    redis.notifications().publish(Topic.key(unitsKey), "changed");
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> covers(table(redis, tableKey), more));
    assertThat(table(redis, tableKey).values()).allSatisfy(l -> assertThat(l.size()).isBetween(4, 5));
  }

  @Test
  void keyspaceNotificationsTriggerARoundWithoutWaitingForThePollInterval() {
    // the shared server may not announce key changes: this one is told to (K: keyspace channel, l: list commands)
    try (RedisServer r = RedisServer.builder().args("--notify-keyspace-events", "Kl").start()) {
      Store store = Stores.open(withShortTimeouts(r.uri()));
      closeLater.add(store);
      member(true, false, store);
      List<String> units = units(5);
      store.seedKeys().replaceList(unitsKey, units);
      DistributorSettings slow =
          new DistributorSettings(List.of(pool), unitsKey, tableKey, Duration.ofSeconds(30), Duration.ofSeconds(2), K, false, Duration.ofSeconds(90),
              "rendezvous", Pinger.Mode.AUTO);
      DistributorServer s = new DistributorServer(store, slow, new SimpleMeterRegistry(), null);
      closeLater.add(s);
      s.start(); // the first round runs at once
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> covers(table(store, tableKey), units));
      List<String> more = units(7);
      store.seedKeys().replaceList(unitsKey, more); // no explicit notification: Redis itself announces the change
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> covers(table(store, tableKey), more));
    }
  }

  @Test
  void badDataIsSkippedNotFatal() {
    member(true, false, redis);
    redis.seedKeys().addToList(pool, "not-an-address");
    redis.seedKeys().replaceList(unitsKey, List.of("good-1", "bad,unit", "good-2", "good-1"));
    server(redis, "rendezvous", null);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> covers(table(redis, tableKey), List.of("good-1", "good-2")));
    assertThat(redis.tables().read(tableKey)).doesNotContainKey("not-an-address");
  }

  @Test
  void ofTwoDistributorsExactlyOneWritesAndTheOtherTakesOverWhenItStops() {
    List<String> units = twoMembersAndUnits(redis, 12);
    List<Long> a = new CopyOnWriteArrayList<>();
    List<Long> b = new CopyOnWriteArrayList<>();
    DistributorServer sa = server(redis, "rendezvous", a);
    DistributorServer sb = server(redis, "rendezvous", b);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> covers(table(redis, tableKey), units));
    Awaitility.await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(30))
        .until(() -> sa.pools().get(0).isLeader() ^ sb.pools().get(0).isLeader());
    DistributorServer leader = sa.pools().get(0).isLeader() ? sa : sb;
    DistributorServer standby = leader == sa ? sb : sa;
    List<Long> standbyEpochs = leader == sa ? b : a;
    assertThat(standbyEpochs).isEmpty();
    leader.close(); // graceful: releases the lease
    long t0 = System.nanoTime();
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> standby.pools().get(0).isLeader());
    System.out.printf("graceful handover took %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    unitsChangeAndTheTableFollows(redis, 14);
    assertThat(standbyEpochs).isNotEmpty();
  }

  @Test
  void aStaleLeaseCannotPublish() {
    String lease = Tables.leaseName(tableKey, pool);
    Lease old = redis.leadership().tryAcquire(lease, "old", Duration.ofMillis(300)).orElseThrow();
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> redis.leadership().tryAcquire(lease, "new", Duration.ofSeconds(5)).isPresent());
    Lease current = redis.leadership().current(lease).orElseThrow();
    assertThat(current.token()).isGreaterThan(old.token());
    redis.tables().publish(current, tableKey, pool, Map.of("m:1", "a,b"));
    assertThatThrownBy(() -> redis.tables().publish(old, tableKey, pool, Map.of("m:1", "evil"))).isInstanceOf(FencedException.class);
    assertThat(redis.tables().read(tableKey)).containsEntry("m:1", "a,b");
  }

  @Test
  void recoversFromARedisRestartWithoutBeingRestarted() {
    try (RedisServer r = RedisServer.start()) {
      Store store = Stores.open(withShortTimeouts(r.uri()));
      closeLater.add(store);
      List<String> units = twoMembersAndUnits(store, 8);
      DistributorServer s = server(store, "rendezvous", null);
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> covers(table(store, tableKey), units));
      Map<String, List<String>> before = table(store, tableKey);
      List<String> members = store.seedKeys().list(pool);
      r.kill();
      // the leader cannot renew against a dead store, so it steps down
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !s.pools().get(0).isLeader());
      r.restart(); // same port, empty: it kept nothing
      // the client reconnects in the background; re-seed the lists once it is connected again
      Awaitility.await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> {
        store.seedKeys().replaceList(unitsKey, units);
        for (String m : members) {
          store.seedKeys().addToList(pool, m);
        }
        return true;
      });
      Awaitility.await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> table(store, tableKey).equals(before));
    }
  }

  @Test
  void aKilledLeaderProcessIsReplacedWithinTheLeaseTtl() throws Exception {
    Process a = leaderProcessOfTwoMembersAndTenUnits();
    List<Long> epochs = new CopyOnWriteArrayList<>();
    DistributorServer b = server(redis, "rendezvous", epochs);
    Awaitility.await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(30)).until(() -> !b.pools().get(0).isLeader());
    Signals.send(a, Signal.KILL); // kill -9: no chance to release the lease
    assertThat(a.waitFor(5, TimeUnit.SECONDS)).isTrue();
    awaitTakeOver(b, "killed");
    unitsChangeAndTheTableFollows(redis, 11);
    assertThat(epochs).isNotEmpty();
  }

  @Test
  void aPausedLeaderIsReplacedAndCannotOverwriteWhenResumed() throws Exception {
    Process a = leaderProcessOfTwoMembersAndTenUnits();
    Lease aLease = redis.leadership().current(Tables.leaseName(tableKey, pool)).orElseThrow();
    Signals.send(a, Signal.STOP);
    DistributorServer b = server(redis, "rendezvous", null);
    awaitTakeOver(b, "paused");
    unitsChangeAndTheTableFollows(redis, 13);
    Map<String, String> bTable = redis.tables().read(tableKey);
    // resume the old leader: its renew fails and its writes are fenced; the table stays B's
    Signals.send(a, Signal.CONT);
    assertThatThrownBy(() -> redis.tables().publish(aLease, tableKey, pool, Map.of())).isInstanceOf(FencedException.class);
    Awaitility.await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(30)).until(() -> redis.tables().read(tableKey).equals(bTable));
    assertThat(b.pools().get(0).isLeader()).isTrue();
  }

  /** Replaces the units list with {@code n} units and waits until the published table holds exactly them. */
  void unitsChangeAndTheTableFollows(Store store, int n) {
    List<String> more = units(n);
    store.seedKeys().replaceList(unitsKey, more);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> covers(table(store, tableKey), more));
  }

  /** Waits until standby {@code b} leads the pool, and prints how long that took. */
  static void awaitTakeOver(DistributorServer b, String leaderWas) {
    long t0 = System.nanoTime();
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> b.pools().get(0).isLeader());
    System.out.printf("standby took over from a %s leader after %d ms (lease ttl %d ms)%n", leaderWas,
        (System.nanoTime() - t0) / 1_000_000, TTL.toMillis());
  }

  /** Two members, ten units and a distributor in another process, once that one has published them all. */
  private Process leaderProcessOfTwoMembersAndTenUnits() throws Exception {
    List<String> units = twoMembersAndUnits(redis, 10);
    Process a = startProcess();
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> covers(table(redis, tableKey), units));
    return a;
  }

  private Process startProcess() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    ProcessBuilder pb =
        new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), DistributorProcessMain.class.getName(), redisUri, pool,
            unitsKey, tableKey, "rendezvous", String.valueOf(POLL.toMillis()), String.valueOf(TIMEOUT.toMillis()), String.valueOf(TTL.toMillis()))
            .redirectErrorStream(true);
    Process proc = pb.start();
    closeLater.add(() -> proc.destroyForcibly().waitFor(5, TimeUnit.SECONDS));
    Thread drain = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          System.out.println("[child] " + line);
        }
      } catch (Exception ignored) {
        // process ended
      }
    });
    drain.setDaemon(true);
    drain.start();
    return proc;
  }
}
