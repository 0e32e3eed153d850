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
  private static final String POOL = "services";
  /** The two members of {@link #POOL}. */
  private static final String A = "127.0.0.1:7001";
  private static final String B = "127.0.0.1:7002";

  /**
   * A registered member that stops renewing is taken out of the table when its lease end plus the store's clock
   * margin comes (the loop wakes then, not at the next poll 30 s later), and at that moment its units can be claimed:
   * the new owner's claims, made as soon as the table is published, all succeed.
   */
  @Test
  void theTableMovesTheMomentTheUnitsOfADeadMemberCanBeClaimed() {
    try (MemoryStore store = new MemoryStore()) {
      long sa = store.membership(POOL).register(A, MemberMeta.DEFAULT, Duration.ofMillis(1000)); // never renewed
      long sb = store.membership(POOL).register(B, MemberMeta.DEFAULT, Duration.ofHours(1));
      List<String> units = eightUnits(store);
      Ownership own = store.ownership(POOL);
      List<String> refused = new CopyOnWriteArrayList<>();
      AtomicLong movedAt = new AtomicLong();
      try (DistributorServer server = new DistributorServer(store, settings(POOL), new SimpleMeterRegistry(), (g, p) -> {
        if (!p.down().contains(A)) {
          own.claimAll(p.table().unitsOf(A), A, sa); // a runs its units
          return;
        }
        long now = store.clock().timeMillis();
        for (String u : p.table().unitsOf(B)) {
          if (own.claim(u, B, sb).isEmpty()) {
            refused.add(u);
          }
        }
        movedAt.compareAndSet(0, now);
      })) {
        long downAt = store.membership(POOL).members().get(A).leaseUntilMillis() + store.safety().clockMargin().toMillis();
        server.start();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> movedAt.get() != 0);
        System.out.printf("the table moved %d ms after the dead member's lease end + clock margin (poll: 30 s)%n",
            movedAt.get() - downAt);
        assertThat(movedAt.get()).isGreaterThanOrEqualTo(downAt);
        assertThat(refused).isEmpty();
        assertThat(own.owners().values()).allMatch(o -> o.member().equals(B));
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
      store.membership(POOL).register(A, MemberMeta.DEFAULT, Duration.ofHours(1));
      eightUnits(store);
      try (DistributorServer server = new DistributorServer(store, settings(POOL), new SimpleMeterRegistry(), null)) {
        server.start();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> "8".equals(count(store, A)));
        long sb = store.membership(POOL).register(B, MemberMeta.DEFAULT, Duration.ofHours(1));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !"0".equals(count(store, B)));
        store.membership(POOL).update(B, sb, MemberMeta.DEFAULT.withAffinity(0));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> "0".equals(count(store, B)) && "8".equals(count(store, A)));
        store.membership(POOL).update(B, sb, MemberMeta.DEFAULT);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !"0".equals(count(store, B)));
        store.membership(POOL).deregister(B, sb);
        Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> !store.tables().read("table").containsKey(B) && "8".equals(count(store, A)));
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
