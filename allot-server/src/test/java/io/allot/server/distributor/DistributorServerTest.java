package io.allot.server.distributor;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.ping.Pinger;
import io.allot.store.MemberMeta;
import io.allot.store.Ownership;
import io.allot.store.memory.MemoryStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The distributor's loop on the in-memory store, in real time. */
class DistributorServerTest {

  /**
   * A registered member that stops renewing is taken out of the table when its lease end plus the store's clock
   * margin comes (the loop wakes then, not at the next poll 30 s later), and at that moment its units can be claimed:
   * the new owner's claims, made as soon as the table is published, all succeed.
   */
  @Test
  void theTableMovesTheMomentTheUnitsOfADeadMemberCanBeClaimed() {
    try (MemoryStore store = new MemoryStore()) {
      String pool = "services";
      String a = "127.0.0.1:7001";
      String b = "127.0.0.1:7002";
      long sa = store.membership(pool).register(a, MemberMeta.DEFAULT, Duration.ofMillis(1000)); // never renewed
      long sb = store.membership(pool).register(b, MemberMeta.DEFAULT, Duration.ofHours(1));
      List<String> units = eightUnits(store);
      Ownership own = store.ownership(pool);
      List<String> refused = new CopyOnWriteArrayList<>();
      AtomicLong movedAt = new AtomicLong();
      try (DistributorServer server = new DistributorServer(store, settings(pool), new SimpleMeterRegistry(), (g, p) -> {
        if (!p.down().contains(a)) {
          own.claimAll(p.table().unitsOf(a), a, sa); // a runs its units
          return;
        }
        long now = store.clock().timeMillis();
        for (String u : p.table().unitsOf(b)) {
          if (own.claim(u, b, sb).isEmpty()) {
            refused.add(u);
          }
        }
        movedAt.compareAndSet(0, now);
      })) {
        long downAt = store.membership(pool).members().get(a).leaseUntilMillis() + store.safety().clockMargin().toMillis();
        server.start();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> movedAt.get() != 0);
        System.out.printf("the table moved %d ms after the dead member's lease end + clock margin (poll: 30 s)%n",
            movedAt.get() - downAt);
        assertThat(movedAt.get()).isGreaterThanOrEqualTo(downAt);
        assertThat(refused).isEmpty();
        assertThat(own.owners().values()).allMatch(o -> o.member().equals(b));
        assertThat(own.owners()).hasSize(units.size());
      }
    }
  }

  /**
   * Registration, an affinity change and deregistration each reach the published table at once, without waiting
   * for the poll (30 s here): the distributor runs a round on the store's announcement.
   */
  @Test
  void registrationAffinityChangeAndDeregistrationArePublishedWithoutWaitingForThePoll() {
    try (MemoryStore store = new MemoryStore()) {
      String pool = "services";
      String a = "127.0.0.1:7001";
      String b = "127.0.0.1:7002";
      store.membership(pool).register(a, MemberMeta.DEFAULT, Duration.ofHours(1));
      eightUnits(store);
      try (DistributorServer server = new DistributorServer(store, settings(pool), new SimpleMeterRegistry(), null)) {
        server.start();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> "8".equals(count(store, a)));
        long sb = store.membership(pool).register(b, MemberMeta.DEFAULT, Duration.ofHours(1));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !"0".equals(count(store, b)));
        store.membership(pool).update(b, sb, MemberMeta.DEFAULT.withAffinity(0));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> "0".equals(count(store, b)) && "8".equals(count(store, a)));
        store.membership(pool).update(b, sb, MemberMeta.DEFAULT);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !"0".equals(count(store, b)));
        store.membership(pool).deregister(b, sb);
        Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> !store.tables().read("table").containsKey(b) && "8".equals(count(store, a)));
      }
    }
  }

  /** How many units {@code member} has in the published table ("none" if it has no entry). */
  static String count(MemoryStore store, String member) {
    return store.tables().read("table", member)
        .map(v -> Integer.toString(v.isEmpty() ? 0 : v.split(",").length)).orElse("none");
  }

  /** The settings of these tests: polls every 30 s (rounds on changes are what they check), rendezvous. */
  static DistributorSettings settings(String pool) {
    return new DistributorSettings(List.of(pool), "units", "table", Duration.ofSeconds(30), Duration.ofMillis(200), 3,
        false, Duration.ofMinutes(2), "rendezvous", Pinger.Mode.AUTO);
  }

  /** Lists unit-0 .. unit-7 as the units of the pool. */
  static List<String> eightUnits(MemoryStore store) {
    List<String> units = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      units.add("unit-" + i);
    }
    store.seedKeys().replaceList("units", units);
    return units;
  }
}
