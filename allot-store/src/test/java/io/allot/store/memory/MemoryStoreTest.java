package io.allot.store.memory;

import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.store.MemberMeta;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.StoreContractTest;
import io.allot.store.tasks.TaskSpecsContractTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MemoryStoreTest extends StoreContractTest {
  private MemoryStore store;

  /** The task-specs contract on the same store, fresh for each test. */
  @Nested
  class TaskSpecsContract extends TaskSpecsContractTest {
    @Override
    protected Store store() {
      return store;
    }
  }

  /** The events contract on the same store, fresh for each test. */
  @Nested
  class EventsContract extends io.allot.store.events.EventsContractTest {
    @Override
    protected Store store() {
      return store;
    }
  }

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
      Lease lease = s.leadership().tryAcquire("leader", "d1", Duration.ofSeconds(10)).orElseThrow();
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
      assertThat(s.leadership().current("leader")).contains(lease);
      assertThat(s.leadership().renew(lease, Duration.ofSeconds(10))).isTrue();
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
      assertThat(s.leadership().current("leader")).contains(lease);
      nanos.addAndGet(1);
      assertThat(s.leadership().current("leader")).isEmpty();
      assertThat(s.leadership().renew(lease, Duration.ofSeconds(10))).isFalse();
      Lease next = s.leadership().tryAcquire("leader", "d2", Duration.ofSeconds(10)).orElseThrow();
      assertThat(next.token()).isGreaterThan(lease.token()).isGreaterThan(s.clock().timeMillis() * 1000);
    }
  }

  @Test
  void timeMillisFollowsTheInjectedClock() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long t0 = s.clock().timeMillis();
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1500));
      assertThat(s.clock().timeMillis()).isEqualTo(t0 + 1500);
    }
  }

  @Test
  void firstTokenIsSeededFromStoreTimeInMicroseconds() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long micros = s.clock().timeMillis() * 1000;
      Lease lease = s.leadership().tryAcquire("leader", "d1", Duration.ofSeconds(1)).orElseThrow();
      assertThat(lease.token()).isGreaterThan(micros);
    }
  }

  @Test
  void publishIsFencedOnceTheInjectedClockPassesTheTtl() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      Lease lease = s.leadership().tryAcquire(Tables.leaseName("t", "g"), "d1", Duration.ofMillis(50)).orElseThrow();
      assertThat(s.tables().publish(lease, "t", "g", Map.of("m", "u"))).isEqualTo(1);
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(50));
      assertThatThrownBy(() -> s.tables().publish(lease, "t", "g", Map.of("m", "v")))
          .isInstanceOf(io.allot.store.FencedException.class)
          .hasMessageContaining("nobody holds it");
      assertThat(s.seedKeys().hash("t")).isEqualTo(Map.of("m", "u"));
    }
  }

  @Test
  void returnedCollectionsAreSnapshots() {
    store.seedKeys().replaceList("k", List.of("a"));
    List<String> snapshot = store.seedKeys().list("k");
    store.seedKeys().addToList("k", "b");
    assertThat(snapshot).containsExactly("a");
    assertThatThrownBy(() -> snapshot.add("c")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void memberLeasesExpireByTheInjectedClockExactlyAtTtl() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long s1 = s.membership("pool").register("m1", MemberMeta.of(1, 1), Duration.ofSeconds(10));
      long s2 = s.membership("pool").register("m2", MemberMeta.of(1, 1), Duration.ofHours(1));
      long t1 = s.ownership("pool").claim("u", "m1", s1).orElseThrow();
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
      assertThat(s.membership("pool").renew("m1", s1, Duration.ofSeconds(10))).isTrue();
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
      assertThat(s.ownership("pool").validToken("u", "m1", s1, t1)).isTrue();
      assertThat(s.ownership("pool").claim("u", "m2", s2)).isEmpty();
      nanos.addAndGet(1);
      assertThat(s.ownership("pool").validToken("u", "m1", s1, t1)).isFalse();
      assertThat(s.membership("pool").renew("m1", s1, Duration.ofSeconds(10))).isFalse();
      // members() rounds the expiry up to a whole millisecond: reported expired from the next one on
      assertThat(s.membership("pool").members().get("m1").leaseUntilMillis()).isEqualTo(s.clock().timeMillis() + 1);
      nanos.addAndGet(1);
      assertThat(s.membership("pool").members().get("m1").liveAt(s.clock().timeMillis())).isFalse();
      // the clock margin: a claim needs the owner's lease over by 200 ms
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(200) - 2);
      assertThat(s.ownership("pool").claim("u", "m2", s2)).isEmpty();
      nanos.addAndGet(1);
      assertThat(s.ownership("pool").claim("u", "m2", s2).orElseThrow()).isGreaterThan(t1);
    }
  }

  @Test
  void leaseUntilIsRoundedUpSoALeaseReportedExpiredIsExpired() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long t0 = s.clock().timeMillis();
      long s1 = s.membership("pool").register("m1", MemberMeta.of(1, 1), Duration.ofNanos(10_000_500_000L)); // 10 000.5 ms
      long s2 = s.membership("pool").register("m2", MemberMeta.of(1, 1), Duration.ofHours(1));
      assertThat(s.membership("pool").members().get("m1").leaseUntilMillis()).isEqualTo(t0 + 10_001);
      nanos.addAndGet(10_000_400_000L);
      assertThat(s.membership("pool").members().get("m1").liveAt(s.clock().timeMillis())).isTrue();
      assertThat(s.ownership("pool").claim("u", "m1", s1)).as("still live").isPresent();
      nanos.addAndGet(600_000L); // t0 + 10 001 ms
      assertThat(s.membership("pool").members().get("m1").liveAt(s.clock().timeMillis())).isFalse();
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(200)); // the clock margin
      assertThat(s.ownership("pool").claim("u", "m2", s2)).isPresent();
    }
  }

  @Test
  void firstSessionIsSeededFromStoreTimeInMicroseconds() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long micros = s.clock().timeMillis() * 1000;
      assertThat(s.membership("pool").register("m1", MemberMeta.of(1, 1), Duration.ofSeconds(1))).isGreaterThan(micros);
    }
  }

  @Test
  void callsAfterCloseFail() {
    MemoryStore s = new MemoryStore();
    s.close();
    s.close();
    assertThatThrownBy(() -> s.seedKeys().list("k")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> s.notifications().publish(Topic.named("c"), "m")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aNeverCrashedStoreGrantsClaimsInANewPoolAtOnce() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long s1 = s.membership("pool").register("m1", MemberMeta.of(1, 1), Duration.ofSeconds(10));
      assertThat(s.ownership("pool").claim("u", "m1", s1)).isPresent();
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void afterACrashClaimsWaitTheLostStateGuardAndTokensKeepGrowing(boolean keepData) {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      long a = s.membership("pool").register("a", MemberMeta.of(1, 1), Duration.ofSeconds(1));
      long t1 = s.ownership("pool").claim("u", "a", a).orElseThrow();
      s.crash(keepData); // a still trusts its lease (it renewed just now)
      long b = s.membership("pool").register("b", MemberMeta.of(1, 1), Duration.ofSeconds(10));
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(2999));
      assertThat(s.ownership("pool").claim("u", "b", b)).as("within the 3 s guard").isEmpty();
      assertThat(s.ownership("pool").claim("other", "b", b)).as("every claim of the pool waits").isEmpty();
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
      long t2 = s.ownership("pool").claim("u", "b", b).orElseThrow();
      assertThat(t2).isGreaterThan(t1);
    }
  }

  @Test
  void aPoolFirstSeenLongAfterACrashNeedsNoWait() {
    try (MemoryStore s = new MemoryStore(nanos::get)) {
      s.crash(false);
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(3));
      long a = s.membership("fresh").register("a", MemberMeta.of(1, 1), Duration.ofSeconds(10));
      assertThat(s.ownership("fresh").claim("u", "a", a)).isPresent();
    }
  }
}
