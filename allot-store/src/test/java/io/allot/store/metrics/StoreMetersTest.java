package io.allot.store.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.SeedKeys;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.memory.MemoryStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class StoreMetersTest {

  @Test
  void everyCallIsTimedByOperationAndOutcome() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (Store store = StoreMeters.wrap(new MemoryStore(), registry)) {
      store.seedKeys().replaceList("svc", List.of("a:1", "b:2"));
      assertThat(store.seedKeys().list("svc")).containsExactly("a:1", "b:2");
      store.seedKeys().list("svc");
      store.clock().timeMillis();
      assertThatThrownBy(() -> store.membership("")).isInstanceOf(IllegalArgumentException.class);
      store.routeWeights("p").read();

      assertThat(registry.get(StoreMeters.ROUND_TRIP).tag("op", "seedKeys.list").tag("outcome", "ok").timer().count())
          .isEqualTo(2);
      assertThat(registry.get(StoreMeters.ROUND_TRIP).tag("op", "seedKeys.replaceList").timer().count()).isEqualTo(1);
      assertThat(registry.get(StoreMeters.ROUND_TRIP).tag("op", "clock.timeMillis").timer().count()).isEqualTo(1);
      assertThat(registry.get(StoreMeters.ROUND_TRIP).tag("op", "routeWeights.read").timer().count()).isEqualTo(1);
      assertThat(store.describe()).isEqualTo("memory:");
    }
  }

  @Test
  void unavailableCallsAndTheRecoveryAfterThemAreCounted() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MemoryStore memory = new MemoryStore();
    AtomicBoolean down = new AtomicBoolean();
    SeedKeys real = memory.seedKeys();
    SeedKeys flaky = (SeedKeys) Proxy.newProxyInstance(SeedKeys.class.getClassLoader(), new Class<?>[] {SeedKeys.class},
        (p, m, args) -> {
          if (down.get()) {
            throw new StoreUnavailableException("down for the test");
          }
          return io.allot.store.spi.Proxies.invoke(real, m, args);
        });
    Store outer = new io.allot.store.spi.AbstractStore(memory.safety(), memory.clock(), memory.leadership(),
        memory.tables(), memory.notifications(), flaky) {
      @Override public String describe() { return "flaky"; }
      @Override public io.allot.store.Membership membership(String pool) { return memory.membership(pool); }
      @Override public io.allot.store.Ownership ownership(String pool) { return memory.ownership(pool); }
      @Override public io.allot.store.jobs.JobQueue jobQueue(String n) { return memory.jobQueue(n); }
      @Override public io.allot.store.tasks.TaskSpecs taskSpecs(String pool) { return memory.taskSpecs(pool); }
      @Override public io.allot.store.RouteWeights routeWeights(String pool) { return memory.routeWeights(pool); }
      @Override public io.allot.store.events.Events events() { return memory.events(); }
      @Override public io.allot.store.jobs.JobQueues jobQueues() { return memory.jobQueues(); }
      @Override public void close() { memory.close(); }
    };
    try (Store store = StoreMeters.wrap(outer, registry)) {
      store.seedKeys().list("k");
      down.set(true);
      assertThatThrownBy(() -> store.seedKeys().list("k")).isInstanceOf(StoreUnavailableException.class);
      assertThatThrownBy(() -> store.seedKeys().list("k")).isInstanceOf(StoreUnavailableException.class);
      assertThat(registry.get(StoreMeters.RECONNECTS).counter().count()).isZero();
      down.set(false);
      store.seedKeys().list("k");
      store.seedKeys().list("k");

      assertThat(registry.get(StoreMeters.UNAVAILABLE).counter().count()).isEqualTo(2);
      assertThat(registry.get(StoreMeters.RECONNECTS).counter().count()).isEqualTo(1);
      assertThat(registry.get(StoreMeters.ROUND_TRIP).tag("op", "seedKeys.list").tag("outcome", "unavailable").timer()
          .count()).isEqualTo(2);
      assertThat(registry.get(StoreMeters.ROUND_TRIP).tag("op", "seedKeys.list").tag("outcome", "ok").timer()
          .count()).isEqualTo(3);
    }
  }
}
