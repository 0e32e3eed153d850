package io.allot.server.distributor;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.assign.Assigners;
import io.allot.server.dev.DemoMember;
import io.allot.server.ping.Pinger;
import io.allot.store.MemberMeta;
import io.allot.store.Membership;
import io.allot.store.Ownership;
import io.allot.store.Tables;
import io.allot.store.memory.MemoryStore;
import io.allot.testkit.Ports;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One pool's rounds, run by hand ({@link PoolDistributor#cycle()}, no threads) on the in-memory store with a clock
 * the test moves: registered members are judged by their lease (down at lease end + clock margin, never by pings, never
 * removed by {@code -remove-dead}), live records missing from the list are added back, long-expired records are
 * removed, holds are honoured, an epoch going backwards is noticed, and names may hold ':'.
 */
class PoolDistributorTest {
  static final Duration MEMBER_TTL = Duration.ofMillis(1500);
  static final long MARGIN = 200; // the memory store's default clock margin, ms
  static final Duration PING_TIMEOUT = Duration.ofMillis(200); // the issue's -ping-timeout

  String pool = "services";
  String unitsKey = "units";
  String tableKey = "table";
  final AtomicLong nanos = new AtomicLong(TimeUnit.SECONDS.toNanos(1000));
  final MemoryStore store = new MemoryStore(nanos::get);
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final Pinger pinger = new Pinger(Pinger.Mode.AUTO, PING_TIMEOUT);
  final List<PoolDistributor.Published> published = new ArrayList<>();
  final List<AutoCloseable> closeLater = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeLater) {
      c.close();
    }
    pinger.close();
    store.close();
  }

  PoolDistributor distributor(String strategy, boolean removeDead, int downAfter) {
    DistributorSettings s = new DistributorSettings(List.of(pool), unitsKey, tableKey, Duration.ofSeconds(1),
        PING_TIMEOUT, downAfter, removeDead, Duration.ofHours(1), strategy, Pinger.Mode.AUTO);
    return new PoolDistributor(store, pinger, Assigners.byName(strategy), s, pool, "test", registry,
        (g, p) -> published.add(p));
  }

  /**
   * The address of a gRPC member that answers pings (so that a distributor that pinged registered members would find
   * them live too: what these tests check is then the lease rule alone).
   */
  String address() {
    return answering().address();
  }

  /** A started gRPC member that answers pings, warmed up; stopped after the test. */
  DemoMember answering() {
    DemoMember m = new DemoMember(0, true, false).start();
    closeLater.add(m);
    warm(m.address());
    return m;
  }

  /** Pings {@code address} until it answers: a first ping over a cold channel may take longer than 200 ms here. */
  void warm(String address) {
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> pinger.ping(address).join().ok());
  }

  Membership members() {
    return store.membership(pool);
  }

  long register(String id) {
    return members().register(id, MemberMeta.DEFAULT, MEMBER_TTL);
  }

  void advance(long millis) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  List<String> units(int n) {
    List<String> u = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      u.add("unit-" + i);
    }
    store.seedKeys().replaceList(unitsKey, u);
    return u;
  }

  Map<String, List<String>> table() {
    return new HashMap<>(store.tables().units(tableKey));
  }

  /** The case: -remove-dead -down-after 1 -ping-timeout 200ms dropped two fresh SDK workers at their first ping. */
  @Test
  void registeredMembersAreNeverPingedNorRemovedDeadOnlyMembersWithoutARecordAre() {
    // registered workers whose ping port does not answer (the cold channel of the issue, made certain)
    String w1 = "127.0.0.1:" + Ports.free();
    String w2 = "127.0.0.1:" + Ports.free();
    long s1 = register(w1);
    long s2 = register(w2);
    DemoMember original = new DemoMember(0, true, false).start(); // an original-style service: pings only
    DemoMember gone = new DemoMember(0, true, false).start();
    closeLater.add(original);
    closeLater.add(gone);
    store.seedKeys().addToList(pool, original.address());
    store.seedKeys().addToList(pool, gone.address());
    gone.stop();
    warm(original.address());
    units(9);
    PoolDistributor d = distributor("rendezvous", true, 1);
    for (int round = 0; round < 3; round++) {
      d.cycle();
      assertThat(store.seedKeys().list(pool)).containsExactlyInAnyOrder(w1, w2, original.address());
      assertThat(table().get(w1)).isNotEmpty();
      assertThat(table().get(w2)).isNotEmpty();
      assertThat(table().get(original.address())).isNotEmpty();
      advance(1000);
      assertThat(members().renew(w1, s1, MEMBER_TTL)).isTrue();
      assertThat(members().renew(w2, s2, MEMBER_TTL)).isTrue();
    }
    assertThat(published.get(published.size() - 1).down()).isEmpty();
  }

  /**
   * The verdicts on members without a record, as the task API's views show them (issue 19: the views said 0 live
   * members while the table had three ping-judged members up): an answering service live, a stopped one down after
   * -down-after failures, a registered member absent (its lease judges it); none once leadership is given up.
   */
  @Test
  void pingVerdictsCoverTheMembersWithoutARecordAndFeedTheTaskViews() {
    String registered = address();
    register(registered);
    DemoMember original = answering();
    DemoMember gone = new DemoMember(0, true, false).start();
    closeLater.add(gone);
    store.seedKeys().addToList(pool, original.address());
    store.seedKeys().addToList(pool, gone.address());
    gone.stop();
    units(6);
    PoolDistributor d = distributor("rendezvous", false, 1);
    assertThat(d.pingVerdicts()).isEmpty();
    d.cycle();
    assertThat(d.pingVerdicts()).isEqualTo(Map.of(original.address(), true, gone.address(), false));
    io.allot.tasks.service.TaskService api = io.allot.tasks.service.TaskService
        .forPools(store, tableKey, List.of(pool)).withPingVerdicts(p -> p.equals(pool) ? d.pingVerdicts() : Map.of());
    assertThat(api.pools().get(0).liveMembers()).isEqualTo(2);
    assertThat(api.members(pool)).extracting(m -> m.id() + " " + m.up() + " " + m.judgedBy())
        .containsExactlyInAnyOrder(registered + " true lease", original.address() + " true ping",
            gone.address() + " false ping");
    d.release();
    assertThat(d.pingVerdicts()).isEmpty();
  }

  @Test
  void aRegisteredMemberIsDownFromItsLeaseEndPlusTheClockMarginWhenItsUnitsCanBeClaimed() {
    String a = address();
    String b = address();
    long sa = register(a);
    long sb = members().register(b, MemberMeta.DEFAULT, Duration.ofHours(1));
    units(10);
    PoolDistributor d = distributor("rendezvous", false, 3);
    long r0 = System.nanoTime();
    d.cycle();
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - r0) + 1;
    List<String> ofA = table().get(a);
    assertThat(ofA).isNotEmpty();
    long leaseEnd = members().members().get(a).leaseUntilMillis();
    long downAt = leaseEnd + MARGIN;
    // the caller is told to run a round exactly then (store time and this clock move alike)
    assertThat(d.millisToNextChange()).isBetween(downAt - store.clock().timeMillis() - elapsedMillis,
        downAt - store.clock().timeMillis());
    Ownership own = store.ownership(pool);
    assertThat(own.claimAll(ofA, a, sa)).hasSize(ofA.size());

    advance(downAt - 1 - store.clock().timeMillis()); // the lease ended, not yet by the margin
    d.cycle();
    assertThat(table().get(a)).isEqualTo(ofA);
    assertThat(own.claim(ofA.get(0), b, sb)).isEmpty(); // the store agrees: not claimable yet

    advance(1);
    d.cycle();
    assertThat(table().get(a)).isEmpty();
    assertThat(table().get(b)).containsAll(ofA);
    assertThat(own.claimAll(ofA, b, sb)).hasSize(ofA.size()); // the moment the table moves, the units can
    assertThat(published.get(published.size() - 1).down()).containsExactly(a);
  }

  @Test
  void liveRecordsMissingFromTheListAreAddedBack() {
    String a = address();
    register(a);
    units(3);
    store.seedKeys().removeFromList(pool, a); // an operator, or an older distributor's -remove-dead
    distributor("rendezvous", false, 3).cycle();
    assertThat(store.seedKeys().list(pool)).containsExactly(a);
    assertThat(table().get(a)).hasSize(3);
  }

  @Test
  void recordsExpiredLongerThanTheCleanupAgeAreRemovedOthersStay() {
    String a = address();
    String b = address();
    long sa = register(a);
    register(b); // never renewed: its process died
    units(4);
    PoolDistributor d = distributor("rendezvous", false, 3);
    long bEnd = members().members().get(b).leaseUntilMillis();
    long cleanupAt = bEnd + LeaseJudge.cleanupAge(store.safety()).toMillis();
    while (store.clock().timeMillis() + 1000 < cleanupAt) {
      d.cycle();
      advance(1000);
      assertThat(members().renew(a, sa, MEMBER_TTL)).isTrue();
    }
    d.cycle();
    assertThat(members().members()).containsOnlyKeys(a, b); // expired, not long enough: kept (down)
    assertThat(store.seedKeys().list(pool)).containsExactlyInAnyOrder(a, b);
    assertThat(table().get(b)).isEmpty();
    advance(cleanupAt - store.clock().timeMillis());
    d.cycle();
    assertThat(members().members()).containsOnlyKeys(a);
    assertThat(store.seedKeys().list(pool)).containsExactly(a);
    assertThat(table()).containsOnlyKeys(a);
    assertThat(table().get(a)).hasSize(4);
  }

  @ParameterizedTest
  @ValueSource(strings = {"rendezvous", "rendezvous-unbounded", "balanced", "seed-ring"})
  void aUnitReleasedWithAHoldGoesToAnotherMemberWhileTheHoldLasts(String strategy) {
    String a = address();
    String b = address();
    String c = address();
    Map<String, Long> sessions = new HashMap<>();
    for (String m : List.of(a, b, c)) {
      sessions.put(m, members().register(m, MemberMeta.DEFAULT, Duration.ofHours(1)));
    }
    List<String> units = units(12);
    PoolDistributor d = distributor(strategy, false, 3);
    d.cycle();
    String x = table().get(a).get(0);
    Ownership own = store.ownership(pool);
    long token = own.claim(x, a, sessions.get(a)).orElseThrow();
    assertThat(own.release(x, a, token, Duration.ofSeconds(10))).isTrue();
    d.cycle();
    Map<String, List<String>> t = table();
    assertThat(t.get(a)).doesNotContain(x);
    assertThat(t.get(b).contains(x) || t.get(c).contains(x)).isTrue();
    Set<String> all = new HashSet<>();
    t.values().forEach(all::addAll);
    assertThat(all).containsExactlyInAnyOrderElementsOf(units);
    assertThat(d.millisToNextChange()).isLessThanOrEqualTo(10_000); // a round when the hold runs out
    advance(10_000);
    d.cycle();
    if (strategy.startsWith("rendezvous") || strategy.equals("seed-ring")) {
      assertThat(table().get(a)).contains(x); // the hold is over: the strategy's own choice again
    }
  }

  @Test
  void anEpochThatGoesBackwardsIsLostStateAndTheTableIsRecomputed() {
    String a = address();
    register(a);
    units(3);
    PoolDistributor d = distributor("rendezvous", false, 3);
    d.cycle();
    units(4);
    d.cycle();
    assertThat(published).extracting(PoolDistributor.Published::epoch).containsExactly(1L, 2L);
    store.crash(false); // a Redis without persistence restarted: everything gone, the leader's lease too
    register(a);
    units(4);
    d.cycle(); // cannot renew: steps down
    d.cycle(); // leads again and publishes epoch 1, after 2
    Counter lost = registry.find("allot_store_lost_state").counter();
    assertThat(lost).isNotNull();
    assertThat(lost.count()).isEqualTo(1.0);
    d.cycle(); // from scratch: published again, though nothing changed since
    assertThat(published).extracting(PoolDistributor.Published::epoch).containsExactly(1L, 2L, 1L, 2L);
    assertThat(lost.count()).isEqualTo(1.0);
  }

  @Test
  void groupAndKeyNamesMayHoldColons() {
    pool = "app:robots:list";
    unitsKey = "app:units";
    tableKey = "app:matching:table";
    String a = address();
    register(a);
    units(5);
    PoolDistributor d = distributor("seed-ring", false, 3);
    d.cycle();
    assertThat(d.isLeader()).isTrue();
    assertThat(store.leadership().current(Tables.leaseName(tableKey, pool))).isPresent();
    assertThat(table().get(a)).hasSize(5);
  }

  /**
   * With a stateful strategy (balanced: the result depends on the table in force), a newly elected distributor
   * computes from the table it reads from the store, not from an empty one: a leader change moves no unit when
   * nothing else changed. The scenario makes the table in force differ from what balanced computes from nothing
   * (a member joined after the first table), so starting from an empty table would move units.
   */
  @Test
  void aNewLeaderContinuesFromTheTableInForceAndMovesNoUnit() {
    String a = address();
    String b = address();
    members().register(a, MemberMeta.DEFAULT, Duration.ofHours(1));
    members().register(b, MemberMeta.DEFAULT, Duration.ofHours(1));
    List<String> units = units(40);
    PoolDistributor first = distributor("balanced", false, 3);
    first.cycle();
    String c = address();
    members().register(c, MemberMeta.DEFAULT, Duration.ofHours(1));
    first.cycle();
    Map<String, List<String>> inForce = table();
    assertThat(inForce.get(c)).isNotEmpty();
    List<io.allot.core.model.Member> live = List.of(io.allot.core.model.Member.of(a), io.allot.core.model.Member.of(b),
        io.allot.core.model.Member.of(c));
    Map<String, String> fromNothing = Assigners.byName("balanced").assign(live, units).toDistributionHash();
    Map<String, String> inForceHash = store.tables().read(tableKey);
    assertThat(fromNothing).as("precondition: the table in force is not what balanced computes from nothing")
        .isNotEqualTo(inForceHash);
    first.release();

    PoolDistributor second = distributor("balanced", false, 3);
    second.cycle();
    assertThat(second.isLeader()).isTrue();
    assertThat(store.tables().read(tableKey)).isEqualTo(inForceHash);
    assertThat(published.get(published.size() - 1).table().toDistributionHash()).isEqualTo(inForceHash);
  }

  /**
   * The units list is read again at a poll round when it is cheap to read, and at any round once announced changed
   * ({@link PoolDistributor#unitsChanged()}); a change round ({@link PoolDistributor#react()}) does not read an
   * unannounced change.
   */
  @Test
  void aChangeRoundReadsTheUnitsListOnlyWhenAnnouncedChanged() {
    String a = address();
    members().register(a, MemberMeta.DEFAULT, Duration.ofHours(1));
    units(3);
    PoolDistributor d = distributor("rendezvous", false, 3);
    d.cycle();
    assertThat(table().get(a)).hasSize(3);
    units(5); // written, but this test wires no notifications
    d.react();
    assertThat(table().get(a)).as("not announced").hasSize(3);
    d.unitsChanged();
    d.react();
    assertThat(table().get(a)).hasSize(5);
    units(6);
    d.cycle();
    assertThat(table().get(a)).as("a poll round reads a cheap list").hasSize(6);
  }

  /** A change round pings a member without a record only if it was never pinged; a poll round pings every one. */
  @Test
  void aChangeRoundPingsOnlyNewMembersWithoutARecord() {
    DemoMember original = answering();
    store.seedKeys().addToList(pool, original.address());
    units(4);
    PoolDistributor d = distributor("rendezvous", false, 1);
    d.react(); // never pinged: pinged now, answers, gets units
    assertThat(table().get(original.address())).hasSize(4);
    original.stop();
    d.react(); // known: keeps the verdict of the last ping
    assertThat(table().get(original.address())).hasSize(4);
    d.cycle(); // the poll round pings it: down after 1 failure
    assertThat(table().get(original.address())).isEmpty();
  }

  /**
   * Run by the server, a poll round does not wait for the pings of known members: they go on in the background, the
   * callback runs when they complete, and the next round counts them.
   */
  @Test
  void backgroundPingsAreCountedByTheRoundAfterThem() throws Exception {
    DemoMember original = answering();
    store.seedKeys().addToList(pool, original.address());
    units(4);
    PoolDistributor d = distributor("rendezvous", false, 1);
    java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
    d.pingInBackground(done::incrementAndGet);
    d.cycle(); // never pinged: pinged in the round itself
    assertThat(table().get(original.address())).hasSize(4);
    assertThat(done.get()).isZero();
    original.stop();
    d.cycle(); // known: pinged in the background; the round goes on with the last verdict
    assertThat(table().get(original.address())).hasSize(4);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> done.get() == 1);
    d.react(); // counts the failed ping: down after 1
    assertThat(table().get(original.address())).isEmpty();
  }

  @Test
  void unplacedUnitsNameNoLiveMemberWhenThePoolHasNone() {
    assertThat(PoolDistributor.unplaced(6, 0, false)).isEqualTo("6 units could not be placed (no live member in the pool)");
    assertThat(PoolDistributor.unplaced(6, 0, true)).isEqualTo("6 units could not be placed (no live member in the pool)");
    assertThat(PoolDistributor.unplaced(2, 3, false)).isEqualTo("2 units could not be placed (capacity exhausted)");
    assertThat(PoolDistributor.unplaced(2, 3, true))
        .isEqualTo("2 units could not be placed (capacity exhausted, or held units with no other member to take them)");
  }
}
