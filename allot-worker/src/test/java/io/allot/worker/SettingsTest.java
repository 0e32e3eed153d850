package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    return Divider.builder(store).pool("p").listener(new UnitListener() {
      @Override
      public void onStart(UnitStart start) {}

      @Override
      public void onStop(UnitStop stop) {}
    });
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
    assertThat(Divider.builder(store).pool("p").port(7001).build().memberId()).isEqualTo("127.0.0.1:7001");
    assertThatThrownBy(d::memberId).isInstanceOf(IllegalStateException.class).hasMessageContaining("port is 0");
  }

  @Test
  void badSettingsAreRejectedNamingTheSetting() {
    rejected(b -> b.pool(null), "pool");
    rejected(b -> b.pool(""), "pool");
    rejected(b -> b.pool("a:b"), "pool", "':'");
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
    rejected(b -> b.renewEvery(Duration.ofMillis(1000)), "renewEvery", "leaseTtl - fenceMargin (1000 ms)");
    rejected(b -> b.leaseTtl(Duration.ofMillis(700)), "renewEvery", "leaseTtl - fenceMargin (200 ms)");
    rejected(b -> b.maxConcurrentMoves(0), "maxConcurrentMoves");
    rejected(b -> b.releaseHold(Duration.ofSeconds(-1)), "releaseHold");
    rejected(b -> b.shutdownGrace(Duration.ofSeconds(-1)), "shutdownGrace");
    assertThatThrownBy(() -> Divider.builder(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("store");
    assertThatThrownBy(() -> UnitRunner.builder(valid().build(), c -> {}).maxThreads(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxThreads");
  }

  @Test
  void aStoreThatRejectsTheRegistrationFailsStartAndFreesThePort() {
    // the pool key holds a hash (WRONGTYPE): a configuration error, not an outage
    io.allot.store.Lease lease = store.tryAcquire(io.allot.store.Store.tableLeaseName("p", "g"), "t", Duration.ofMinutes(1)).orElseThrow();
    store.publish(lease, "p", "g", java.util.Map.of("f", "v"));
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
