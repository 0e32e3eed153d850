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
      String group = "services";
      String a = "127.0.0.1:7001";
      String b = "127.0.0.1:7002";
      long sa = store.membership(group).register(a, MemberMeta.DEFAULT, Duration.ofMillis(1000)); // never renewed
      long sb = store.membership(group).register(b, MemberMeta.DEFAULT, Duration.ofHours(1));
      List<String> units = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        units.add("unit-" + i);
      }
      store.seedKeys().replaceList("units", units);
      Ownership own = store.ownership(group);
      List<String> refused = new CopyOnWriteArrayList<>();
      AtomicLong movedAt = new AtomicLong();
      DistributorSettings settings = new DistributorSettings(List.of(group), "units", "table", Duration.ofSeconds(30),
          Duration.ofMillis(200), 3, false, Duration.ofMinutes(2), "rendezvous", Pinger.Mode.AUTO);
      try (DistributorServer server = new DistributorServer(store, settings, new SimpleMeterRegistry(), (g, p) -> {
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
        long downAt = store.membership(group).members().get(a).leaseUntilMillis() + store.safety().clockMargin().toMillis();
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
}
