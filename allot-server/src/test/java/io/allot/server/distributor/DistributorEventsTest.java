package io.allot.server.distributor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.core.assign.Table;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.RecordedEvent;
import io.allot.core.assign.Assigners;
import io.allot.server.ping.Pinger;
import io.allot.store.MemberMeta;
import io.allot.store.Membership;
import io.allot.store.memory.MemoryStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a pool's distributor writes into the event history, rounds run by hand on the memory store. */
class DistributorEventsTest {
  static final Duration MEMBER_TTL = Duration.ofMillis(1500);
  static final long MARGIN = 200; // the memory store's default clock margin, ms

  final String pool = "services";
  final AtomicLong nanos = new AtomicLong(TimeUnit.SECONDS.toNanos(1000));
  final MemoryStore store = new MemoryStore(nanos::get);
  final Pinger pinger = new Pinger(Pinger.Mode.AUTO, Duration.ofMillis(200));

  @AfterEach
  void close() {
    pinger.close();
    store.close();
  }

  PoolDistributor distributor() {
    DistributorSettings s = new DistributorSettings(List.of(pool), "units", "table", Duration.ofSeconds(1),
        Duration.ofMillis(200), 3, false, Duration.ofHours(1), "balanced", Pinger.Mode.AUTO);
    return new PoolDistributor(store, pinger, Assigners.byName("balanced"), s, pool, "test", new SimpleMeterRegistry(),
        null);
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

  void units(int n) {
    List<String> u = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      u.add("unit-" + i);
    }
    store.seedKeys().replaceList("units", u);
  }

  private List<RecordedEvent> events() {
    return store.events().query(EventQuery.all().inPool(pool).limit(1000)).events();
  }

  @Test
  void theLeadTheTablesWithTheirMovesAndMembersGoingDownAreRecorded() {
    units(4);
    long a = register("a");
    register("b");
    PoolDistributor d = distributor();
    d.cycle();
    await().atMost(Duration.ofSeconds(10)).until(() -> events().size() >= 2); // written on the background thread
    assertThat(events()).extracting(RecordedEvent::kind)
        .containsExactly(EventKind.LEADER_CHANGED, EventKind.TABLE_PUBLISHED);
    assertThat(events().get(0).subject()).isEqualTo("test");
    assertThat(events().get(1).detail()).startsWith("epoch ").contains(": 4 of 4 units moved");
    assertThat(events()).allMatch(e -> e.actor().equals(DistributorEvents.ACTOR));

    advance(MEMBER_TTL.toMillis() / 2);
    members().renew("a", a, MEMBER_TTL);
    advance(MEMBER_TTL.toMillis() / 2 + MARGIN + 1); // b's lease is over by the margin; a's is not
    d.cycle();
    await().atMost(Duration.ofSeconds(10)).until(() -> events().size() >= 4);
    List<RecordedEvent> after = events().subList(2, events().size());
    assertThat(after).extracting(RecordedEvent::kind).containsExactly(EventKind.MEMBER_DOWN, EventKind.TABLE_PUBLISHED);
    assertThat(after.get(0).subject()).isEqualTo("b");
    assertThat(after.get(1).detail()).contains("units moved: ").contains("b -> a");

    register("c");
    d.cycle();
    await().atMost(Duration.ofSeconds(10)).until(() -> events().stream().anyMatch(e -> e.kind() == EventKind.MEMBER_UP));
    assertThat(events()).extracting(RecordedEvent::kind).contains(EventKind.MEMBER_UP);
  }

  @Test
  void aTableDescriptionCountsAndNamesTheMovedUnits() {
    Table before = Table.of(Map.of("a", List.of("u1", "u2"), "b", List.of("u3")));
    Table after = Table.of(Map.of("a", List.of("u1"), "b", List.of("u2")));
    assertThat(DistributorEvents.describe(7, before, after))
        .isIn("epoch 7: 2 of 2 units moved: u2 a -> b, u3 b -> (none)");
    assertThat(DistributorEvents.describe(8, after, after)).isEqualTo("epoch 8: 0 of 2 units moved");
  }
}
