package io.allot.server.distributor;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.assign.Assigners;
import io.allot.server.ping.Pinger;
import io.allot.store.MemberMeta;
import io.allot.store.memory.MemoryStore;
import io.allot.store.tasks.TaskSpecs;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pool with long-running task specs, rounds run by hand on the in-memory store: its live specs are its units (the
 * units list is ignored), capacities count task costs, a deleted task leaves the table (also the last one: the table
 * becomes empty, it is not kept), and a tombstone is purged after the retention once nobody runs it.
 */
class TaskSpecPoolTest {
  static final Duration TTL = Duration.ofSeconds(5);
  final AtomicLong nanos = new AtomicLong(TimeUnit.SECONDS.toNanos(1000));
  final MemoryStore store = new MemoryStore(nanos::get);
  final Pinger pinger = new Pinger(Pinger.Mode.AUTO, Duration.ofMillis(200));
  final String pool = "observers";
  final TaskSpecs specs = store.taskSpecs(pool);

  @AfterEach
  void close() {
    pinger.close();
    store.close();
  }

  PoolDistributor distributor(Duration retention) {
    DistributorSettings s = new DistributorSettings(List.of(pool), "units", "table", Duration.ofSeconds(1),
        Duration.ofMillis(200), 3, false, Duration.ofHours(1), "balanced", Pinger.Mode.AUTO, retention);
    return new PoolDistributor(store, pinger, Assigners.byName("balanced"), s, pool, "test",
        new SimpleMeterRegistry(), (g, p) -> {});
  }

  Map<String, List<String>> table() {
    return new HashMap<>(store.tables().units("table"));
  }

  /** Registers member m1:1 with a lease of {@code ttl} and creates task {@code name}; the member's session. */
  long m1With(String name, Duration ttl) {
    long session = store.membership(pool).register("m1:1", MemberMeta.DEFAULT, ttl);
    specs.create(name, "{}", 1);
    return session;
  }

  long load(String member, Map<String, Integer> costs) {
    return table().getOrDefault(member, List.of()).stream().mapToLong(t -> costs.getOrDefault(t, 1)).sum();
  }

  @Test
  void liveSpecsAreTheUnitsAndCapacityCountsTheirCosts() {
    store.seedKeys().replaceList("units", List.of("a-unit-of-the-list"));
    store.membership(pool).register("m1:1", MemberMeta.of(1, 6), TTL);
    store.membership(pool).register("m2:1", MemberMeta.of(1, 6), TTL);
    Map<String, Integer> costs = new HashMap<>();
    for (int i = 0; i < 8; i++) {
      int cost = i % 3 == 0 ? 3 : 1;
      specs.create("obs-" + i, "{}", cost);
      costs.put("obs-" + i, cost);
    } // total cost 3+1+1+3+1+1+3+1 = 14 > 12: something must wait
    PoolDistributor d = distributor(Duration.ofHours(1));
    d.cycle();
    List<String> placed = new ArrayList<>();
    table().values().forEach(placed::addAll);
    assertThat(placed).doesNotContain("a-unit-of-the-list").doesNotHaveDuplicates();
    assertThat(load("m1:1", costs)).isLessThanOrEqualTo(6);
    assertThat(load("m2:1", costs)).isLessThanOrEqualTo(6);
    assertThat(placed.stream().mapToLong(t -> costs.get(t)).sum()).as("overflow only what fits nowhere")
        .isGreaterThanOrEqualTo(10);

    specs.delete("obs-0");
    specs.delete("obs-3");
    d.unitsChanged();
    d.cycle();
    placed.clear();
    table().values().forEach(placed::addAll);
    assertThat(placed).as("with room again, every live task is placed").containsExactlyInAnyOrder("obs-1", "obs-2",
        "obs-4", "obs-5", "obs-6", "obs-7");
  }

  @Test
  void deletingTheLastTaskEmptiesTheTableAndTheTombstoneGoesAfterTheRetention() {
    long session = m1With("only", Duration.ofMinutes(5));
    PoolDistributor d = distributor(Duration.ofSeconds(30));
    d.cycle();
    assertThat(table()).containsEntry("m1:1", List.of("only"));
    long token = store.ownership(pool).claim("only", "m1:1", session).orElseThrow();

    specs.delete("only");
    d.unitsChanged();
    d.cycle();
    assertThat(table().getOrDefault("m1:1", List.of())).isEmpty();
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(31));
    d.cycle();
    assertThat(specs.get("only")).as("still running on m1: kept").isPresent();
    store.ownership(pool).release("only", "m1:1", token);
    d.cycle();
    assertThat(specs.get("only")).as("stopped everywhere and older than the retention: purged").isEmpty();
  }

  @Test
  void aTombstoneWhoseOwnersLeaseEndedLessThanTheClockMarginAgoIsKept() {
    long session = m1With("t", Duration.ofSeconds(31));
    PoolDistributor d = distributor(Duration.ofSeconds(30));
    d.cycle();
    store.ownership(pool).claim("t", "m1:1", session).orElseThrow();
    specs.delete("t");
    d.unitsChanged();
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(31_100)); // the lease ended 100 ms ago; the margin is 200 ms
    d.cycle();
    assertThat(specs.get("t")).as("its owner may still be running it").isPresent();
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(150));
    d.cycle();
    assertThat(specs.get("t")).isEmpty();
  }
}
