package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Tables;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SettingsTest {
  private final MemoryStore store = new MemoryStore();

  @AfterEach
  void close() {
    store.close();
  }

  private Divider.Builder valid() {
    return Divider.builder(store).pool("p").host("127.0.0.1").listener(UnitListener.of(start -> {}, stop -> {}));
  }

  private void rejected(UnaryOperator<Divider.Builder> change, String setting, String... more) {
    var thrown = assertThatThrownBy(() -> change.apply(valid()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(setting);
    if (more.length > 0) {
      thrown.hasMessageContainingAll(more);
    }
  }

  @Test
  void theDefaultsAreValid() {
    Divider d = valid().build();
    assertThat(d.affinity()).isEqualTo(1);
    assertThat(d.capacity()).isEqualTo(Integer.MAX_VALUE);
    assertThat(Divider.builder(store).pool("p").host("127.0.0.1").port(7001).build().memberId())
        .isEqualTo("127.0.0.1:7001");
    assertThatThrownBy(d::memberId).isInstanceOf(IllegalStateException.class).hasMessageContaining("port is 0");
  }

  @Test
  void theMetadataAndTheAppServerPortAreSettings() {
    Divider d = valid().version("1.4.2").zone("eu-west-1a").attribute("team", "crawl").capacity(7).affinity(3).build();
    assertThat(d.meta()).isEqualTo(new io.allot.store.MemberMeta(3, 7,
        java.util.Map.of("version", "1.4.2", "zone", "eu-west-1a", "team", "crawl")));
    assertThat(d.meta().version()).isEqualTo("1.4.2");
    assertThat(valid().build().meta()).isEqualTo(io.allot.store.MemberMeta.DEFAULT);
    assertThat(valid().host("127.0.0.1").pingsOnAppServer(8080).build().memberId()).isEqualTo("127.0.0.1:8080");
    assertThatThrownBy(() -> valid().pingsOnAppServer(0).build().memberId()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void badSettingsAreRejectedNamingTheSetting() {
    rejected(b -> b.pool(null), "pool");
    rejected(b -> b.pool(""), "pool");
    rejected(b -> b.distribution(""), "distribution");
    rejected(b -> b.host(" "), "host");
    rejected(b -> b.bindAddress(""), "bindAddress");
    rejected(b -> b.port(-1), "port");
    rejected(b -> b.port(70000), "port");
    rejected(b -> b.affinity(-1), "affinity");
    rejected(b -> b.capacity(-1), "capacity");
    rejected(b -> b.leaseTtl(Duration.ZERO), "leaseTtl");
    rejected(b -> b.leaseTtl(null), "leaseTtl");
    rejected(b -> b.leaseTtl(Duration.ofNanos(10)), "leaseTtl", "1 ms");
    rejected(b -> b.renewEvery(Duration.ofMillis(-1)), "renewEvery");
    rejected(b -> b.fenceMargin(Duration.ZERO), "fenceMargin");
    rejected(b -> b.syncInterval(Duration.ZERO), "syncInterval");
    rejected(b -> b.fenceMargin(Duration.ofMillis(1500)), "fenceMargin", "leaseTtl");
    // with the defaults (lease 1 s, fence margin 200 ms, renewals every 100 ms)
    rejected(b -> b.renewEvery(Duration.ofMillis(800)), "renewEvery", "leaseTtl - fenceMargin (800 ms)");
    rejected(b -> b.leaseTtl(Duration.ofMillis(250)), "renewEvery", "leaseTtl - fenceMargin (50 ms)");
    rejected(b -> b.maxConcurrentMoves(0), "maxConcurrentMoves");
    rejected(b -> b.releaseHold(Duration.ofSeconds(-1)), "releaseHold");
    rejected(b -> b.shutdownGrace(Duration.ofSeconds(-1)), "shutdownGrace");
    rejected(b -> b.version(" "), "version");
    rejected(b -> b.version(null), "version");
    rejected(b -> b.zone(""), "zone");
    rejected(b -> b.attribute("no spaces", "v"), "attribute", "no spaces");
    rejected(b -> b.attribute("k", null), "attribute", "'k'");
    rejected(b -> b.attribute("k", "v".repeat(257)), "attribute", "256");
    rejected(b -> {
      for (int i = 0; i < 33; i++) {
        b.attribute("a" + i, "v");
      }
      return b;
    }, "attribute", "32");
    rejected(b -> b.pingsOnAppServer(-1), "pingsOnAppServer");
    rejected(b -> b.pingsOnAppServer(70000), "pingsOnAppServer");
    rejected(b -> b.pingsOnAppServer(8080).port(7001), "pingsOnAppServer", "port(7001)");
    rejected(b -> b.pingsOnAppServer(8080).bindAddress("0.0.0.0"), "bindAddress", "pingsOnAppServer");
    assertThatThrownBy(() -> Divider.builder(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("store");
    assertThatThrownBy(() -> UnitRunner.builder(valid().build(), c -> {}).maxThreads(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxThreads");
  }

  @Test
  void poolNamesMayContainColons() {
    assertThat(valid().pool("app:robots:list").build()).isNotNull(); // as the original distributor's keys do
  }

  /**
   * The lease defaults (issue 22): a kill's units may be claimed {@code leaseTtl} + the store's clock margin after
   * the last renewal, which must leave room for the table and the claims within the 1.5 s failover goal; yet the
   * renewals may stall as long as with the earlier defaults (1500 - 500 - 300 ms) before the member fences itself,
   * the application keeps at least 400 ms between {@code LEASE_LOST} and the earliest claim, and the store's default
   * lost-state guard covers the lease.
   */
  @Test
  void theLeaseDefaultsLeaveRoomForTheFailoverGoalWithoutLessStallTolerance() {
    io.allot.store.Safety safety = io.allot.store.Safety.defaults(false);
    Duration ttl = Divider.DEFAULT_LEASE_TTL;
    Duration renew = Divider.DEFAULT_RENEW_EVERY;
    Duration margin = Divider.DEFAULT_FENCE_MARGIN;
    assertThat(ttl.plus(safety.clockMargin())).as("lease + clock margin: the least failover time")
        .isLessThanOrEqualTo(Duration.ofMillis(1200));
    assertThat(ttl.minus(margin).minus(renew)).as("a renewal stall tolerated before the fence")
        .isGreaterThanOrEqualTo(Duration.ofMillis(1500 - 500 - 300));
    assertThat(margin.plus(safety.clockMargin())).as("LEASE_LOST -> the earliest claim by another member")
        .isGreaterThanOrEqualTo(Duration.ofMillis(400));
    assertThat(valid().build()).isNotNull();
    Settings s = new Settings("p", "h", "127.0.0.1", null, 0, false, 1, Integer.MAX_VALUE, java.util.Map.of(), ttl,
        renew, margin, Divider.DEFAULT_SYNC_INTERVAL, 16, 64, Duration.ofSeconds(30), Duration.ofSeconds(5),
        Duration.ofSeconds(10));
    assertThat(s.guardWarning(safety)).as("the default guard covers the default lease").isEmpty();
  }

  @Test
  void aLeaseLongerThanTheStoresLostStateGuardIsWarnedAbout() {
    Settings s = new Settings("p", "h", "127.0.0.1", null, 0, false, 1, Integer.MAX_VALUE, java.util.Map.of(),
        Duration.ofMillis(1500), Duration.ofMillis(300), Duration.ofMillis(500), Duration.ofMillis(500), 16, 64,
        Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(10));
    assertThat(s.guardWarning(io.allot.store.Safety.defaults(false))).as("3 s covers 1.5 s").isEmpty();
    io.allot.store.Safety shortGuard = new io.allot.store.Safety(Duration.ofSeconds(1), Duration.ofMillis(200), false,
        java.util.List.of());
    assertThat(s.guardWarning(shortGuard)).hasValueSatisfying(w -> assertThat(w)
        .startsWith("leaseTtl (1500 ms)").contains("guard (1000 ms)"));
  }

  @Test
  void aStoreThatRejectsTheRegistrationFailsStartAndFreesThePort() {
    // the pool key holds a hash (WRONGTYPE): a configuration error, not an outage
    io.allot.store.Lease lease = store.leadership().tryAcquire(io.allot.store.Tables.leaseName("p", "g"), "t", Duration.ofMinutes(1)).orElseThrow();
    store.tables().publish(lease, "p", "g", java.util.Map.of("f", "v"));
    Divider d = valid().build();
    assertThatThrownBy(d::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("WRONGTYPE");
    d.cancel();
  }

  @Test
  void aPortInUseIsReportedNamingTheSetting() {
    Divider first = valid().build();
    first.start();
    try {
      int port = Integer.parseInt(first.memberId().substring(first.memberId().lastIndexOf(':') + 1));
      Divider second = valid().port(port).build();
      assertThatThrownBy(second::start).hasMessageContaining("'port'");
      assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class); // cannot restart
    } finally {
      first.cancel();
    }
  }
}
