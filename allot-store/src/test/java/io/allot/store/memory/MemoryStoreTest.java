package io.allot.store.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.StoreContractTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MemoryStoreTest extends StoreContractTest {
  private MemoryStore store;

  @BeforeEach
  void open() {
    store = new MemoryStore();
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Override
  protected Store store() {
    return store;
  }

  // ---- with an injected clock: expiry is exact and needs no waiting

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Test
  void leasesExpireByTheInjectedClockExactlyAtTtl() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      Lease lease = s.tryAcquire("leader", "d1", Duration.ofSeconds(10)).orElseThrow();
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
      assertThat(s.currentLeader("leader")).contains(lease);
      assertThat(s.renew(lease, Duration.ofSeconds(10))).isTrue();
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
      assertThat(s.currentLeader("leader")).contains(lease);
      nanos.addAndGet(1);
      assertThat(s.currentLeader("leader")).isEmpty();
      assertThat(s.renew(lease, Duration.ofSeconds(10))).isFalse();
      Lease next = s.tryAcquire("leader", "d2", Duration.ofSeconds(10)).orElseThrow();
      assertThat(next.token()).isEqualTo(lease.token() + 1);
    }
  }

  @Test
  void timeMillisFollowsTheInjectedClock() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long t0 = s.timeMillis();
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1500));
      assertThat(s.timeMillis()).isEqualTo(t0 + 1500);
    }
  }

  @Test
  void firstTokenIsSeededFromStoreTimeInMicroseconds() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long micros = s.timeMillis() * 1000;
      Lease lease = s.tryAcquire("leader", "d1", Duration.ofSeconds(1)).orElseThrow();
      assertThat(lease.token()).isGreaterThan(micros);
    }
  }

  @Test
  void publishIsFencedOnceTheInjectedClockPassesTheTtl() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      Lease lease = s.tryAcquire(Store.tableLeaseName("t", "g"), "d1", Duration.ofMillis(50)).orElseThrow();
      assertThat(s.publish(lease, "t", "g", Map.of("m", "u"))).isEqualTo(1);
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(50));
      assertThatThrownBy(() -> s.publish(lease, "t", "g", Map.of("m", "v")))
          .isInstanceOf(io.allot.store.FencedException.class)
          .hasMessageContaining("nobody holds it");
      assertThat(s.hash("t")).isEqualTo(Map.of("m", "u"));
    }
  }

  @Test
  void returnedCollectionsAreSnapshots() {
    store.replaceList("k", List.of("a"));
    List<String> snapshot = store.list("k");
    store.addToList("k", "b");
    assertThat(snapshot).containsExactly("a");
    assertThatThrownBy(() -> snapshot.add("c")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void memberLeasesExpireByTheInjectedClockExactlyAtTtl() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long s1 = s.register("pool", "m1", 1, 1, Duration.ofSeconds(10));
      long s2 = s.register("pool", "m2", 1, 1, Duration.ofHours(1));
      long t1 = s.claim("pool", "u", "m1", s1).orElseThrow();
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
      assertThat(s.renewMember("pool", "m1", s1, Duration.ofSeconds(10))).isTrue();
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
      assertThat(s.validToken("pool", "u", t1)).isTrue();
      assertThat(s.claim("pool", "u", "m2", s2)).isEmpty();
      nanos.addAndGet(1);
      assertThat(s.validToken("pool", "u", t1)).isFalse();
      assertThat(s.renewMember("pool", "m1", s1, Duration.ofSeconds(10))).isFalse();
      // members() rounds the expiry up to a whole millisecond: reported expired from the next one on
      assertThat(s.members("pool").get("m1").leaseUntilMillis()).isEqualTo(s.timeMillis() + 1);
      nanos.addAndGet(1);
      assertThat(s.members("pool").get("m1").liveAt(s.timeMillis())).isFalse();
      assertThat(s.claim("pool", "u", "m2", s2)).hasValue(t1 + 1);
    }
  }

  @Test
  void leaseUntilIsRoundedUpSoALeaseReportedExpiredIsExpired() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long t0 = s.timeMillis();
      long s1 = s.register("pool", "m1", 1, 1, Duration.ofNanos(10_000_500_000L)); // 10 000.5 ms
      long s2 = s.register("pool", "m2", 1, 1, Duration.ofHours(1));
      assertThat(s.members("pool").get("m1").leaseUntilMillis()).isEqualTo(t0 + 10_001);
      nanos.addAndGet(10_000_400_000L);
      assertThat(s.members("pool").get("m1").liveAt(s.timeMillis())).isTrue();
      assertThat(s.claim("pool", "u", "m1", s1)).as("still live").isPresent();
      nanos.addAndGet(600_000L); // t0 + 10 001 ms
      assertThat(s.members("pool").get("m1").liveAt(s.timeMillis())).isFalse();
      assertThat(s.claim("pool", "u", "m2", s2)).isPresent();
    }
  }

  @Test
  void firstSessionIsSeededFromStoreTimeInMicroseconds() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long micros = s.timeMillis() * 1000;
      assertThat(s.register("pool", "m1", 1, 1, Duration.ofSeconds(1))).isGreaterThan(micros);
    }
  }

  @Test
  void callsAfterCloseFail() {
    MemoryStore s = new MemoryStore();
    s.close();
    s.close();
    assertThatThrownBy(() -> s.list("k")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> s.notify("c", "m")).isInstanceOf(IllegalStateException.class);
  }
}
