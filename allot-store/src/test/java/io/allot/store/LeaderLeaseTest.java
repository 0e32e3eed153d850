package io.allot.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaderLease}: one clock (hand-driven nanoseconds) for the memory store and both holders, so every step of
 * the step-down rule is exact: a refused renewal steps down at once; a renewal that cannot reach the store keeps the
 * lease until {@code sent + ttl - margin} and not a nanosecond longer; a release lets a standby lead at once.
 */
class LeaderLeaseTest {
  private static final Duration TTL = Duration.ofSeconds(10);
  private static final Duration MARGIN = Duration.ofSeconds(1);

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final MemoryStore store = new MemoryStore(now::get);
  /** When set, every call of the leadership throws as an unreachable store would. */
  private final AtomicBoolean down = new AtomicBoolean();
  private final Leadership leadership = new Leadership() {
    @Override
    public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
      check();
      return store.leadership().tryAcquire(name, holder, ttl);
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      check();
      return store.leadership().renew(lease, ttl);
    }

    @Override
    public void release(Lease lease) {
      check();
      store.leadership().release(lease);
    }

    @Override
    public Optional<Lease> current(String name) {
      check();
      return store.leadership().current(name);
    }

    private void check() {
      if (down.get()) {
        throw new StoreUnavailableException("store down (test)");
      }
    }
  };
  private final List<String> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    store.close();
  }

  private LeaderLease lease(String holder) {
    return LeaderLease.builder(leadership, "lead:x", holder).ttl(TTL).margin(MARGIN).nanoClock(now::get)
        .listener(new LeaderLease.Listener() {
          @Override
          public void elected(Lease lease) {
            events.add(holder + " elected " + lease.token());
          }

          @Override
          public void deposed(Lease lease, String why) {
            events.add(holder + " deposed: " + why);
          }
        }).build();
  }

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void oneHolderLeadsTheOtherStandsBy() {
    LeaderLease a = lease("a");
    LeaderLease b = lease("b");
    Lease got = a.tick().orElseThrow();
    assertThat(b.tick()).isEmpty();
    assertThat(a.current()).contains(got);
    assertThat(a.tick()).as("renewed").contains(got);
    assertThat(b.isLeader()).isFalse();
    assertThat(events).containsExactly("a elected " + got.token());
  }

  @Test
  void aRefusedRenewalStepsDownAtOnce() {
    LeaderLease a = lease("a");
    Lease first = a.tick().orElseThrow();
    store.crash(false); // the store lost the lease
    assertThat(a.tick()).isEmpty();
    assertThat(a.isLeader()).isFalse();
    assertThat(events).containsExactly("a elected " + first.token(), "a deposed: the lease was lost (expired or "
        + "taken over)");
  }

  @Test
  void anUnreachableStoreKeepsTheLeaseUntilSentPlusTtlMinusMarginThenStepsDown() {
    LeaderLease a = lease("a");
    Lease held = a.tick().orElseThrow(); // sent at t0: trusted until t0 + 9 s
    advance(Duration.ofSeconds(3));
    assertThat(a.tick()).contains(held); // renewed, sent at t0 + 3 s: trusted until t0 + 12 s
    down.set(true);
    advance(Duration.ofSeconds(3));
    assertThat(a.tick()).as("renewal failed, still within the deadline").contains(held);
    advance(Duration.ofSeconds(6).minusNanos(1));
    assertThat(a.current()).as("one nanosecond before the deadline").contains(held);
    advance(Duration.ofNanos(1));
    assertThat(a.current()).as("at the deadline, without a tick").isEmpty();
    assertThat(a.tick()).isEmpty();
    assertThat(events).last().asString().startsWith("a deposed: the lease ran out before it was renewed");
    // the store kept the lease until t0 + 3 s + ttl: nobody else gets it before then
    down.set(false);
    LeaderLease b = lease("b");
    assertThat(b.tick()).isEmpty();
    advance(Duration.ofSeconds(1));
    assertThat(b.tick()).isPresent().get().extracting(Lease::token).isNotEqualTo(held.token());
  }

  @Test
  void aReleaseLetsTheStandbyLeadAtOnceWithAHigherToken() {
    LeaderLease a = lease("a");
    LeaderLease b = lease("b");
    Lease first = a.tick().orElseThrow();
    a.release();
    assertThat(a.isLeader()).isFalse();
    Lease second = b.tick().orElseThrow();
    assertThat(second.token()).isGreaterThan(first.token());
    assertThat(events).containsExactly("a elected " + first.token(), "a deposed: released",
        "b elected " + second.token());
  }

  @Test
  void anAcquisitionThatCannotReachTheStoreIsNotAnError() {
    down.set(true);
    assertThat(lease("a").tick()).isEmpty();
  }

  @Test
  void withLeaseRunsUnderTheLeaseAndReleasesItOrNamesTheHolder() {
    assertThat(LeaderLease.withLease(leadership, "lead:y", "w", TTL, Duration.ZERO, Lease::holder)).isEqualTo("w");
    assertThat(store.leadership().current("lead:y")).isEmpty();
    store.leadership().tryAcquire("lead:y", "other", TTL).orElseThrow();
    assertThatThrownBy(() -> LeaderLease.withLease(leadership, "lead:y", "w", TTL, Duration.ofMillis(120),
        Lease::holder)).isInstanceOf(IllegalStateException.class).hasMessageContaining("held by other");
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> LeaderLease.builder(leadership, "", "a").build()).hasMessageStartingWith("name:");
    assertThatThrownBy(() -> LeaderLease.builder(leadership, "n", "").build()).hasMessageStartingWith("holder:");
    assertThatThrownBy(() -> LeaderLease.builder(leadership, "n", "a").ttl(Duration.ZERO).build())
        .hasMessageStartingWith("ttl:");
    assertThatThrownBy(() -> LeaderLease.builder(leadership, "n", "a").ttl(TTL).margin(TTL).build())
        .hasMessageStartingWith("margin:");
  }
}
