package io.allot.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link Store} must have. Extend it and provide {@link #store()} (and optionally
 * {@link #peer()}, a second client of the same backing store). Every test works under keys starting with a fresh
 * random {@link #prefix()}, so implementations backed by a shared server need no flushing; clean up by prefix.
 */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
public abstract class StoreContractTest {

  /** Generous enough for a loaded 2-core CI machine; conditions are polled, never slept on. */
  protected static final Duration PATIENCE = Duration.ofSeconds(10);

  private String prefix;

  /** The store under test. */
  protected abstract Store store();

  /** A second client of the same backing store (another process, in production); defaults to {@link #store()}. */
  protected Store peer() {
    return store();
  }

  @BeforeEach
  void newPrefix() {
    prefix = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 12) + ":";
  }

  /** The random key prefix of the running test. */
  protected String prefix() {
    return prefix;
  }

  protected String key(String name) {
    return prefix + name;
  }

  protected static ConditionFactory waiting() {
    return await().atMost(PATIENCE).pollInterval(Duration.ofMillis(10)).pollDelay(Duration.ZERO);
  }

  // ---------------------------------------------------------------- lists

  @Test
  void missingListIsEmpty() {
    assertThat(store().list(key("nothing"))).isEmpty();
  }

  @Test
  void addToListPushesAtTheHeadOnlyIfAbsent() {
    String k = key("services");
    assertThat(store().addToList(k, "a:1")).isTrue();
    assertThat(store().addToList(k, "b:2")).isTrue();
    assertThat(store().addToList(k, "a:1")).isFalse();
    assertThat(peer().addToList(k, "b:2")).isFalse();
    assertThat(store().list(k)).containsExactly("b:2", "a:1");
  }

  @Test
  void addToListIsAtomicUnderConcurrency() throws Exception {
    String k = key("race");
    int threads = 16;
    List<Boolean> results = race(threads, i -> () -> (i % 2 == 0 ? store() : peer()).addToList(k, "same"));
    assertThat(results).containsOnlyOnce(true);
    assertThat(store().list(k)).containsExactly("same");

    String k2 = key("race2");
    List<Boolean> distinct = race(threads, i -> () -> store().addToList(k2, "v" + (i % 4)));
    assertThat(distinct.stream().filter(b -> b).count()).isEqualTo(4);
    assertThat(store().list(k2)).containsExactlyInAnyOrder("v0", "v1", "v2", "v3");
  }

  @Test
  void removeFromListRemovesEveryOccurrence() {
    String k = key("units");
    store().replaceList(k, List.of("a", "b", "a", "c"));
    assertThat(store().removeFromList(k, "a")).isTrue();
    assertThat(store().list(k)).containsExactly("b", "c");
    assertThat(store().removeFromList(k, "a")).isFalse();
    assertThat(store().removeFromList(key("missing"), "a")).isFalse();
    assertThat(store().removeFromList(k, "b")).isTrue();
    assertThat(store().removeFromList(k, "c")).isTrue();
    assertThat(store().list(k)).isEmpty();
    assertThat(store().addToList(k, "d")).isTrue();
    assertThat(store().list(k)).containsExactly("d");
  }

  @Test
  void replaceListReplacesInOrderAndEmptyDeletes() {
    String k = key("units");
    store().replaceList(k, List.of("x", "y"));
    store().replaceList(k, List.of("u1", "u2", "u3"));
    assertThat(peer().list(k)).containsExactly("u1", "u2", "u3");
    store().replaceList(k, List.of());
    assertThat(store().list(k)).isEmpty();
  }

  @Test
  void replaceListHandlesLargeLists() {
    String k = key("big");
    List<String> values = IntStream.range(0, 10_000).mapToObj(i -> "unit-" + i).collect(Collectors.toList());
    store().replaceList(k, values);
    assertThat(store().list(k)).isEqualTo(values);
  }

  @Test
  void missingHashIsEmpty() {
    assertThat(store().hash(key("nothing"))).isEmpty();
  }

  @Test
  void usingAListAsAHashFails() {
    String k = key("list");
    store().replaceList(k, List.of("a"));
    assertThatThrownBy(() -> store().hash(k)).isInstanceOf(IllegalStateException.class);
    Lease lease = store().tryAcquire(Store.tableLeaseName(k, "g"), "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThatThrownBy(() -> store().publish(lease, k, "g", Map.of("m", "u")))
        .isInstanceOf(IllegalStateException.class);
    assertThat(store().list(k)).containsExactly("a");
    assertThat(store().epoch(k)).isZero();
  }

  // ---------------------------------------------------------------- clock

  @Test
  void timeMillisIsTheStoreClockAndAdvances() {
    long t0 = store().timeMillis();
    assertThat(t0).isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(86_400_000L));
    waiting().until(() -> store().timeMillis() >= t0 + 20);
    long a = store().timeMillis();
    long b = store().timeMillis();
    assertThat(b).isGreaterThanOrEqualTo(a);
  }

  // ---------------------------------------------------------------- leases

  @Test
  void leaseIsExclusive() {
    String name = key("leader");
    Lease lease = store().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThat(lease.name()).isEqualTo(name);
    assertThat(lease.holder()).isEqualTo("d1");
    assertThat(peer().tryAcquire(name, "d2", Duration.ofSeconds(30))).isEmpty();
    assertThat(store().tryAcquire(name, "d1", Duration.ofSeconds(30))).as("not re-entrant").isEmpty();
    assertThat(peer().currentLeader(name)).contains(lease);
    assertThat(store().currentLeader(key("other"))).isEmpty();
  }

  @Test
  void concurrentAcquisitionHasOneWinner() throws Exception {
    String name = key("contended");
    List<Optional<Lease>> results =
        race(16, i -> () -> (i % 2 == 0 ? store() : peer()).tryAcquire(name, "d" + i, Duration.ofSeconds(30)));
    List<Lease> winners = results.stream().flatMap(Optional::stream).collect(Collectors.toList());
    assertThat(winners).hasSize(1);
    assertThat(store().currentLeader(name)).contains(winners.get(0));
  }

  @Test
  void tokenStrictlyIncreasesOnEveryAcquisition() {
    String name = key("leader");
    long last = Long.MIN_VALUE;
    for (int i = 0; i < 5; i++) {
      Lease lease = store().tryAcquire(name, i % 2 == 0 ? "d1" : "d2", Duration.ofSeconds(30)).orElseThrow();
      assertThat(lease.token()).isGreaterThan(last);
      last = lease.token();
      store().release(lease);
    }
    Lease viaPeer = peer().tryAcquire(name, "d3", Duration.ofSeconds(30)).orElseThrow();
    assertThat(viaPeer.token()).isGreaterThan(last);
  }

  @Test
  void leaseExpiresByStoreTimeAndTheNextTokenIsGreater() {
    String name = key("leader");
    Lease first = store().tryAcquire(name, "d1", Duration.ofMillis(150)).orElseThrow();
    waiting().until(() -> store().currentLeader(name).isEmpty());
    Lease second = peer().tryAcquire(name, "d2", Duration.ofSeconds(30)).orElseThrow();
    assertThat(second.token()).isGreaterThan(first.token());
  }

  @Test
  void renewExtendsTheLease() {
    String name = key("leader");
    Lease lease = store().tryAcquire(name, "d1", Duration.ofMillis(300)).orElseThrow();
    assertThat(store().renew(lease, Duration.ofSeconds(30))).isTrue();
    // held well past the original 300 ms
    await().during(Duration.ofMillis(700)).atMost(PATIENCE).pollInterval(Duration.ofMillis(20))
        .until(() -> store().currentLeader(name).equals(Optional.of(lease)));
    assertThat(peer().tryAcquire(name, "d2", Duration.ofSeconds(1))).isEmpty();
  }

  @Test
  void renewFailsAfterExpiry() {
    String name = key("leader");
    Lease lease = store().tryAcquire(name, "d1", Duration.ofMillis(100)).orElseThrow();
    waiting().until(() -> store().currentLeader(name).isEmpty());
    assertThat(store().renew(lease, Duration.ofSeconds(30))).isFalse();
    assertThat(store().currentLeader(name)).as("a failed renew must not resurrect the lease").isEmpty();
  }

  @Test
  void renewFailsAfterSomeoneElseAcquired() {
    String name = key("leader");
    Lease old = store().tryAcquire(name, "d1", Duration.ofMillis(100)).orElseThrow();
    waiting().until(() -> store().currentLeader(name).isEmpty());
    Lease now = peer().tryAcquire(name, "d2", Duration.ofSeconds(30)).orElseThrow();
    assertThat(store().renew(old, Duration.ofSeconds(30))).isFalse();
    assertThat(store().currentLeader(name)).contains(now);
  }

  @Test
  void renewNeedsTheSameToken() {
    String name = key("leader");
    Lease first = store().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    store().release(first);
    Lease second = store().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThat(store().renew(first, Duration.ofSeconds(30))).as("same holder, stale token").isFalse();
    assertThat(store().renew(new Lease(name, "d2", second.token()), Duration.ofSeconds(30))).isFalse();
    assertThat(store().renew(second, Duration.ofSeconds(30))).isTrue();
  }

  @Test
  void releaseIsCompareAndDelete() {
    String name = key("leader");
    Lease old = store().tryAcquire(name, "d1", Duration.ofMillis(100)).orElseThrow();
    waiting().until(() -> store().currentLeader(name).isEmpty());
    Lease now = peer().tryAcquire(name, "d2", Duration.ofSeconds(30)).orElseThrow();
    store().release(old);
    assertThat(store().currentLeader(name)).as("a stale release must not delete the new lease").contains(now);
    store().release(new Lease(name, "d2", now.token() - 1));
    assertThat(store().currentLeader(name)).contains(now);
    peer().release(now);
    assertThat(store().currentLeader(name)).isEmpty();
    store().release(now); // idempotent
    Lease next = store().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThat(next.token()).isGreaterThan(now.token());
  }

  @Test
  void ttlBelowOneMillisecondIsRejected() {
    assertThatThrownBy(() -> store().tryAcquire(key("l"), "d1", Duration.ofNanos(10)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().tryAcquire(key("l"), "d1", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---------------------------------------------------------------- fenced publication

  private Lease tableLease(Store s, String hashKey, String group, String holder) {
    return s.tryAcquire(Store.tableLeaseName(hashKey, group), holder, Duration.ofSeconds(30)).orElseThrow();
  }

  @Test
  void tableLeaseNameJoinsHashKeyAndGroup() {
    assertThat(Store.tableLeaseName("sys-matching-table", "g1")).isEqualTo("sys-matching-table:g1");
    assertThatThrownBy(() -> Store.tableLeaseName("t", "a:b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Store.tableLeaseName("t", "")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Store.tableLeaseName("", "g")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void publishWritesFieldsAndIncrementsTheEpoch() {
    String h = key("table");
    assertThat(store().epoch(h)).isZero();
    Lease lease = tableLease(store(), h, "g1", "d1");
    assertThat(store().publish(lease, h, "g1", Map.of("m1:1", "u1,u2", "m2:1", "u3"))).isEqualTo(1);
    assertThat(peer().hash(h)).isEqualTo(Map.of("m1:1", "u1,u2", "m2:1", "u3"));
    assertThat(store().publish(lease, h, "g1", Map.of("m1:1", "u1,u2", "m2:1", "u3"))).isEqualTo(2);
    assertThat(peer().epoch(h)).isEqualTo(2);
    assertThat(store().epoch(key("other"))).isZero();
  }

  @Test
  void publishRemovesTheGroupsStaleFields() {
    String h = key("table");
    Lease lease = tableLease(store(), h, "g1", "d1");
    store().publish(lease, h, "g1", Map.of("m1", "u1", "m2", "u2", "m3", "u3"));
    store().publish(lease, h, "g1", Map.of("m1", "u1,u2", "m4", "u3"));
    assertThat(store().hash(h)).isEqualTo(Map.of("m1", "u1,u2", "m4", "u3"));
    store().publish(lease, h, "g1", Map.of());
    assertThat(store().hash(h)).isEmpty();
    assertThat(store().epoch(h)).isEqualTo(3);
  }

  @Test
  void publishNeverRemovesAnotherGroupsFields() {
    String h = key("table");
    Lease g1 = tableLease(store(), h, "g1", "d1");
    Lease g2 = tableLease(peer(), h, "g2", "d2");
    store().publish(g1, h, "g1", Map.of("a1", "u1", "a2", "u2"));
    peer().publish(g2, h, "g2", Map.of("b1", "u3"));
    store().publish(g1, h, "g1", Map.of());
    assertThat(store().hash(h)).isEqualTo(Map.of("b1", "u3"));

    // a member moving from g2 to g1: the last writer owns the field; g2 dropping it later must not delete it
    store().publish(g1, h, "g1", Map.of("b1", "u3,u4"));
    peer().publish(g2, h, "g2", Map.of("b2", "u5"));
    assertThat(store().hash(h)).isEqualTo(Map.of("b1", "u3,u4", "b2", "u5"));
    assertThat(store().epoch(h)).isEqualTo(5);
  }

  @Test
  void publishWithAStaleLeaseIsFencedAndChangesNothing() {
    String h = key("table");
    String name = Store.tableLeaseName(h, "g1");
    Lease old = store().tryAcquire(name, "d1", Duration.ofMillis(100)).orElseThrow();
    store().publish(old, h, "g1", Map.of("m1", "u1"));
    waiting().until(() -> store().currentLeader(name).isEmpty());

    assertThatThrownBy(() -> store().publish(old, h, "g1", Map.of("m1", "u2")))
        .as("expired, nobody holds it")
        .isInstanceOf(FencedException.class)
        .hasMessageContaining("d1");

    Lease now = peer().tryAcquire(name, "d2", Duration.ofSeconds(30)).orElseThrow();
    assertThatThrownBy(() -> store().publish(old, h, "g1", Map.of("m9", "u9")))
        .isInstanceOfSatisfying(FencedException.class, e -> {
          assertThat(e.lease()).isEqualTo(old);
          assertThat(e.current()).contains(now);
          assertThat(e.getMessage()).contains("d1").contains("d2");
        });
    assertThatThrownBy(() -> store().publish(new Lease(name, "d1", now.token()), h, "g1", Map.of("m9", "u9")))
        .as("right token, wrong holder").isInstanceOf(FencedException.class);
    assertThat(store().hash(h)).isEqualTo(Map.of("m1", "u1"));
    assertThat(store().epoch(h)).isEqualTo(1);

    assertThat(peer().publish(now, h, "g1", Map.of("m2", "u1"))).isEqualTo(2);
    peer().release(now);
    assertThatThrownBy(() -> peer().publish(now, h, "g1", Map.of("m3", "u1")))
        .as("released").isInstanceOf(FencedException.class);
    assertThat(store().hash(h)).isEqualTo(Map.of("m2", "u1"));
  }

  @Test
  void publishNeedsTheGroupsOwnLease() {
    String h = key("table");
    Lease g1 = tableLease(store(), h, "g1", "d1");
    assertThatThrownBy(() -> store().publish(g1, h, "g2", Map.of("m", "u")))
        .isInstanceOf(IllegalArgumentException.class);
    Lease plain = store().tryAcquire(key("leader"), "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThatThrownBy(() -> store().publish(plain, h, "g1", Map.of("m", "u")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().epoch(h)).isZero();
  }

  @Test
  void publishHandlesManyFields() {
    String h = key("table");
    Lease lease = tableLease(store(), h, "g1", "d1");
    Map<String, String> many = new LinkedHashMap<>();
    for (int i = 0; i < 3001; i++) {
      many.put("10.0." + (i / 250) + "." + (i % 250) + ":8080", "u" + i);
    }
    store().publish(lease, h, "g1", many);
    assertThat(store().hash(h)).isEqualTo(many);
    store().publish(lease, h, "g1", Map.of("m", "u"));
    assertThat(store().hash(h)).isEqualTo(Map.of("m", "u"));
  }

  // ---------------------------------------------------------------- hashField

  @Test
  void hashFieldReadsOneField() {
    String h = key("table");
    assertThat(store().hashField(h, "m1")).as("missing hash").isNull();
    Lease lease = tableLease(store(), h, "g1", "d1");
    store().publish(lease, h, "g1", Map.of("m1", "u1,u2", "m2", ""));
    assertThat(peer().hashField(h, "m1")).isEqualTo("u1,u2");
    assertThat(store().hashField(h, "m2")).as("empty value is not missing").isEqualTo("");
    assertThat(store().hashField(h, "m3")).as("missing field").isNull();
    String list = key("list");
    store().replaceList(list, List.of("a"));
    assertThatThrownBy(() -> store().hashField(list, "a")).isInstanceOf(IllegalStateException.class);
  }

  // ---------------------------------------------------------------- membership

  /** Long enough never to expire during a test on a loaded machine; expiry is forced with {@link #expireMember}. */
  protected static final Duration LONG_TTL = Duration.ofSeconds(30);

  /**
   * Makes a live registration expire: renews it to 1 ms (deterministic: it is live now), then waits until the store
   * reports it expired. An expired lease is never revived, so it stays expired.
   */
  protected void expireMember(String pool, String id, long session) {
    assertThat(store().renewMember(pool, id, session, Duration.ofMillis(1))).as("renew %s to 1 ms", id).isTrue();
    waiting().until(() -> !store().members(pool).get(id).liveAt(store().timeMillis()));
  }

  @Test
  void registerListsTheMemberOnceAndSessionsIncrease() {
    String pool = key("services");
    long s1 = store().register(pool, "m1:1", 1, 10, LONG_TTL);
    long s2 = peer().register(pool, "m2:1", 2, Integer.MAX_VALUE, LONG_TTL);
    long s3 = store().register(pool, "m1:1", 3, 5, LONG_TTL);
    assertThat(s2).isGreaterThan(s1);
    assertThat(s3).isGreaterThan(s2);
    assertThat(store().list(pool)).containsExactly("m2:1", "m1:1");

    long now = store().timeMillis();
    Map<String, MemberRecord> members = peer().members(pool);
    assertThat(members).containsOnlyKeys("m1:1", "m2:1");
    MemberRecord m1 = members.get("m1:1");
    assertThat(m1).extracting(MemberRecord::id, MemberRecord::affinity, MemberRecord::capacity, MemberRecord::session)
        .containsExactly("m1:1", 3, 5, s3);
    assertThat(members.get("m2:1")).extracting(MemberRecord::affinity, MemberRecord::capacity, MemberRecord::session)
        .containsExactly(2, Integer.MAX_VALUE, s2);
    assertThat(m1.liveAt(now)).isTrue();
    assertThat(m1.leaseUntilMillis()).isBetween(now + LONG_TTL.toMillis() - PATIENCE.toMillis(),
        now + LONG_TTL.toMillis() + 1); // + 1: a store may round the expiry up to its next millisecond

    // a member that pushed itself into the list (the seed layout) is not listed twice
    assertThat(store().addToList(pool, "m3:1")).isTrue();
    long s4 = store().register(pool, "m3:1", 1, 1, LONG_TTL);
    assertThat(s4).isGreaterThan(s3);
    assertThat(store().list(pool)).containsExactly("m3:1", "m2:1", "m1:1");
    assertThat(store().members(key("other-pool"))).isEmpty();
  }

  @Test
  void reRegisteringSupersedesTheOldSession() {
    String pool = key("services");
    long old = store().register(pool, "m1", 1, 10, LONG_TTL);
    long t1 = store().claim(pool, "u1", "m1", old).orElseThrow();
    long s2 = peer().register(pool, "m2", 1, 10, LONG_TTL);
    assertThat(peer().claim(pool, "u1", "m2", s2)).as("owned by a live session").isEmpty();

    long current = store().register(pool, "m1", 1, 10, LONG_TTL);
    assertThat(current).isGreaterThan(old);
    assertThat(store().renewMember(pool, "m1", old, LONG_TTL)).isFalse();
    assertThat(store().updateMember(pool, "m1", old, 2, 2)).isFalse();
    assertThat(store().claim(pool, "u2", "m1", old)).isEmpty();
    assertThat(store().validToken(pool, "u1", t1)).isFalse();

    long t2 = peer().claim(pool, "u1", "m2", s2).orElseThrow();
    assertThat(t2).isGreaterThan(t1);
    assertThat(store().owners(pool)).isEqualTo(Map.of("u1", new Ownership("u1", "m2", s2, t2)));
    assertThat(store().claim(pool, "u1", "m1", current)).as("now owned by m2").isEmpty();

    store().deregister(pool, "m1", old); // superseded: no effect
    assertThat(store().list(pool)).containsExactly("m2", "m1");
    assertThat(store().members(pool).get("m1").session()).isEqualTo(current);
    assertThat(store().renewMember(pool, "m1", current, LONG_TTL)).isTrue();
    assertThat(store().members(pool).get("m1").affinity()).isEqualTo(1);
  }

  @Test
  void claimAllClaimsEachUnitLikeClaim() {
    String pool = key("services");
    long s1 = store().register(pool, "m1", 1, 10, LONG_TTL);
    long s2 = peer().register(pool, "m2", 1, 10, LONG_TTL);
    long t1 = peer().claim(pool, "u1", "m2", s2).orElseThrow();
    long mine = store().claim(pool, "u3", "m1", s1).orElseThrow();

    Map<String, Long> got = store().claimAll(pool, java.util.List.of("u1", "u2", "u3", "u4"), "m1", s1);
    assertThat(got.keySet()).as("u1 is owned by a live session").containsExactlyInAnyOrder("u2", "u3", "u4");
    assertThat(got.get("u3")).as("a repeated claim returns the token held").isEqualTo(mine);
    assertThat(got.get("u2")).isGreaterThan(t1).isNotEqualTo(got.get("u4"));
    assertThat(store().owners(pool).get("u2")).isEqualTo(new Ownership("u2", "m1", s1, got.get("u2")));
    assertThat(store().owners(pool).get("u1").member()).isEqualTo("m2");
    assertThat(store().claimAll(pool, java.util.List.of(), "m1", s1)).isEmpty();

    long s1b = store().register(pool, "m1", 1, 10, LONG_TTL); // supersedes s1
    assertThat(store().claimAll(pool, java.util.List.of("u5"), "m1", s1)).as("stale session").isEmpty();
    assertThat(store().claimAll(pool, java.util.List.of("u2", "u5"), "m1", s1b))
        .as("the old session's units are claimable by the new one").containsOnlyKeys("u2", "u5");
  }

  @Test
  void renewExtendsButNeverRevivesAnExpiredLease() {
    String pool = key("services");
    long s = store().register(pool, "m1", 1, 10, LONG_TTL);
    long until0 = store().members(pool).get("m1").leaseUntilMillis();
    assertThat(peer().renewMember(pool, "m1", s, LONG_TTL.multipliedBy(2))).isTrue();
    assertThat(store().members(pool).get("m1").leaseUntilMillis()).isGreaterThan(until0);
    assertThat(store().renewMember(pool, "m1", s + 1_000_000, LONG_TTL)).as("unknown session").isFalse();
    assertThat(store().renewMember(pool, "nobody", s, LONG_TTL)).isFalse();

    expireMember(pool, "m1", s);
    MemberRecord expired = store().members(pool).get("m1");
    assertThat(store().renewMember(pool, "m1", s, LONG_TTL)).isFalse();
    assertThat(peer().renewMember(pool, "m1", s, LONG_TTL)).isFalse();
    assertThat(store().updateMember(pool, "m1", s, 5, 5)).isFalse();
    assertThat(store().claim(pool, "u1", "m1", s)).isEmpty();
    assertThat(store().members(pool).get("m1")).as("not revived, not changed").isEqualTo(expired);
    assertThat(store().list(pool)).as("expiry does not unlist").containsExactly("m1");

    long again = store().register(pool, "m1", 1, 10, LONG_TTL);
    assertThat(again).isGreaterThan(s);
    assertThat(store().renewMember(pool, "m1", again, LONG_TTL)).isTrue();
    assertThat(store().claim(pool, "u1", "m1", again)).isPresent();
  }

  @Test
  void membersShowsExpiredRecordsWithALeaseInThePast() {
    String pool = key("services");
    long t0 = store().timeMillis();
    long s1 = store().register(pool, "m1", 2, 7, LONG_TTL);
    long s2 = peer().register(pool, "m2", 1, Integer.MAX_VALUE, LONG_TTL);
    expireMember(pool, "m1", s1);

    Map<String, MemberRecord> members = peer().members(pool);
    long now = store().timeMillis();
    assertThat(members).containsOnlyKeys("m1", "m2");
    MemberRecord m1 = members.get("m1");
    assertThat(m1).extracting(MemberRecord::affinity, MemberRecord::capacity, MemberRecord::session)
        .containsExactly(2, 7, s1);
    assertThat(m1.liveAt(now)).isFalse();
    assertThat(m1.leaseUntilMillis()).isBetween(t0, now);
    MemberRecord m2 = members.get("m2");
    assertThat(m2.session()).isEqualTo(s2);
    assertThat(m2.liveAt(now)).isTrue();
    assertThat(m2.leaseUntilMillis()).isGreaterThan(now + LONG_TTL.toMillis() - PATIENCE.toMillis());
    assertThat(store().list(pool)).containsExactlyInAnyOrder("m1", "m2");
  }

  @Test
  void updateMemberChangesWeightsKeepsTheLeaseAndNotifies() throws Exception {
    String pool = key("services");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().subscribe(Store.membersChannel(pool), got::add)) {
      long s = store().register(pool, "m1", 1, 10, LONG_TTL);
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m1");
      MemberRecord before = store().members(pool).get("m1");

      assertThat(store().updateMember(pool, "m1", s, 0, 3)).isTrue();
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m1");
      assertThat(peer().members(pool).get("m1")).isEqualTo(new MemberRecord("m1", 0, 3, s,
          before.leaseUntilMillis()));

      assertThat(store().updateMember(pool, "m1", s + 1_000_000, 5, 5)).isFalse();
      assertThat(store().updateMember(pool, "ghost", s, 5, 5)).isFalse();
      assertThatThrownBy(() -> store().updateMember(pool, "m1", s, -1, 5))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(store().members(pool).get("m1").affinity()).isZero();
      // barrier: refused updates announced nothing, so the next message is m2's registration
      store().register(pool, "m2", 1, 1, LONG_TTL);
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m2");
    }
  }

  @Test
  void deregisterUnlistsFreesTheUnitsAndNotifies() throws Exception {
    String pool = key("services");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().subscribe(Store.membersChannel(pool), got::add)) {
      long s1 = store().register(pool, "m1", 1, 10, LONG_TTL);
      long s2 = peer().register(pool, "m2", 1, 10, LONG_TTL);
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m1");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m2");
      long t1 = store().claim(pool, "u", "m1", s1).orElseThrow();

      store().deregister(pool, "m1", s1 + 1_000_000); // not its session: nothing happens
      assertThat(store().list(pool)).containsExactly("m2", "m1");
      assertThat(store().validToken(pool, "u", t1)).isTrue();

      store().deregister(pool, "m1", s1);
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m1");
      assertThat(peer().list(pool)).containsExactly("m2");
      assertThat(peer().members(pool)).containsOnlyKeys("m2");
      assertThat(store().validToken(pool, "u", t1)).isFalse();
      assertThat(store().renewMember(pool, "m1", s1, LONG_TTL)).isFalse();
      assertThat(store().claim(pool, "u2", "m1", s1)).isEmpty();
      long t2 = peer().claim(pool, "u", "m2", s2).orElseThrow();
      assertThat(t2).isGreaterThan(t1);
      store().deregister(pool, "m1", s1); // idempotent

      store().updateMember(pool, "m2", s2, 2, 2);
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
          .as("neither the refused nor the repeated deregistration was announced").isEqualTo("m2");
      store().deregister(pool, "m2", s2);
      assertThat(store().list(pool)).isEmpty();
      assertThat(store().members(pool)).isEmpty();
    }
  }

  @Test
  void registeringIntoAKeyThatIsNotAListFailsAndChangesNothing() {
    String h = key("table");
    Lease lease = tableLease(store(), h, "g1", "d1");
    store().publish(lease, h, "g1", Map.of("m", "u"));
    assertThatThrownBy(() -> store().register(h, "m1", 1, 1, LONG_TTL)).isInstanceOf(IllegalStateException.class);
    assertThat(store().members(h)).isEmpty();
    assertThat(store().hash(h)).isEqualTo(Map.of("m", "u"));
  }

  @Test
  void membershipArgumentsAreChecked() {
    String pool = key("services");
    assertThatThrownBy(() -> store().register(pool, "m1", 1, 1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().register(pool, "", 1, 1, LONG_TTL)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().register(pool, "m1", -1, 1, LONG_TTL))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().register(pool, "m1", 1, -1, LONG_TTL))
        .isInstanceOf(IllegalArgumentException.class);
    long s = store().register(pool, "m1", 0, 0, LONG_TTL);
    assertThatThrownBy(() -> store().renewMember(pool, "m1", s, Duration.ofNanos(10)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().members(pool).get("m1").liveAt(store().timeMillis())).isTrue();
    assertThat(store().list(pool)).containsExactly("m1");
  }

  // ---------------------------------------------------------------- ownership

  @Test
  void claimIsExclusiveUnderConcurrency() throws Exception {
    String pool = key("services");
    int n = 16;
    long[] sessions = new long[n];
    for (int i = 0; i < n; i++) {
      sessions[i] = (i % 2 == 0 ? store() : peer()).register(pool, "m" + i, 1, 10, LONG_TTL);
    }
    List<OptionalLong> first =
        race(n, i -> () -> (i % 2 == 0 ? store() : peer()).claim(pool, "u", "m" + i, sessions[i]));
    int w = onlyWinner(first);
    long t1 = first.get(w).getAsLong();
    assertThat(store().owners(pool)).isEqualTo(Map.of("u", new Ownership("u", "m" + w, sessions[w], t1)));
    assertThat(peer().validToken(pool, "u", t1)).isTrue();
    assertThat(store().claim(pool, "u", "m" + w, sessions[w])).as("repeated claim").hasValue(t1);

    // the owner expires: the others race again, and again exactly one wins, with a larger token
    expireMember(pool, "m" + w, sessions[w]);
    List<OptionalLong> second = race(n, i -> () -> i == w ? OptionalLong.empty()
        : (i % 2 == 0 ? store() : peer()).claim(pool, "u", "m" + i, sessions[i]));
    int w2 = onlyWinner(second);
    long t2 = second.get(w2).getAsLong();
    assertThat(t2).isGreaterThan(t1);
    assertThat(store().owners(pool)).isEqualTo(Map.of("u", new Ownership("u", "m" + w2, sessions[w2], t2)));
    assertThat(store().validToken(pool, "u", t1)).isFalse();
    assertThat(store().validToken(pool, "u", t2)).isTrue();
  }

  private static int onlyWinner(List<OptionalLong> results) {
    List<Integer> winners = IntStream.range(0, results.size()).filter(i -> results.get(i).isPresent()).boxed()
        .collect(Collectors.toList());
    assertThat(winners).as("claimants that got a token").hasSize(1);
    return winners.get(0);
  }

  @Test
  void claimingFromAnExpiredOwnerGivesALargerTokenAndFencesTheOldOne() {
    String pool = key("services");
    long s1 = store().register(pool, "m1", 1, 10, LONG_TTL);
    long s2 = peer().register(pool, "m2", 1, 10, LONG_TTL);
    long t1 = store().claim(pool, "u", "m1", s1).orElseThrow();
    assertThat(store().claim(pool, "u", "m1", s1)).as("repeated claim keeps the token").hasValue(t1);
    assertThat(peer().claim(pool, "u", "m2", s2)).isEmpty();
    assertThat(peer().validToken(pool, "u", t1)).isTrue();
    assertThat(peer().validToken(pool, "u", t1 - 1)).isFalse();
    assertThat(peer().validToken(pool, "other", t1)).isFalse();

    expireMember(pool, "m1", s1);
    assertThat(store().validToken(pool, "u", t1)).as("owner expired").isFalse();
    assertThat(store().owners(pool)).as("still recorded, but claimable")
        .isEqualTo(Map.of("u", new Ownership("u", "m1", s1, t1)));
    long t2 = peer().claim(pool, "u", "m2", s2).orElseThrow();
    assertThat(t2).isGreaterThan(t1);
    assertThat(store().validToken(pool, "u", t2)).isTrue();
    assertThat(store().validToken(pool, "u", t1)).isFalse();
    assertThat(store().releaseUnit(pool, "u", "m1", t1)).as("stale release").isFalse();
    assertThat(store().claim(pool, "u", "m1", s1)).isEmpty();
    assertThat(store().owners(pool)).isEqualTo(Map.of("u", new Ownership("u", "m2", s2, t2)));

    assertThat(store().claim(pool, "u2", "ghost", s2)).as("not registered").isEmpty();
    assertThat(store().claim(pool, "u2", "m2", s2 + 1_000_000)).as("not its session").isEmpty();
    assertThat(store().owners(pool)).containsOnlyKeys("u");
  }

  @Test
  void releaseUnitIsCompareAndDeleteAndNotifies() throws Exception {
    String pool = key("services");
    BlockingQueue<String> released = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().subscribe(Store.ownersChannel(pool), released::add)) {
      long s1 = store().register(pool, "m1", 1, 10, LONG_TTL);
      long s2 = store().register(pool, "m2", 1, 10, LONG_TTL);
      long t1 = store().claim(pool, "u1", "m1", s1).orElseThrow();
      long ta = store().claim(pool, "u2", "m1", s1).orElseThrow();

      assertThat(store().releaseUnit(pool, "u1", "m1", ta)).as("another unit's token").isFalse();
      assertThat(store().releaseUnit(pool, "u1", "m2", t1)).as("another member").isFalse();
      assertThat(store().releaseUnit(pool, "nothing", "m1", t1)).isFalse();
      assertThat(store().validToken(pool, "u1", t1)).isTrue();

      assertThat(peer().releaseUnit(pool, "u1", "m1", t1)).isTrue();
      assertThat(released.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("u1");
      assertThat(store().releaseUnit(pool, "u1", "m1", t1)).as("already released").isFalse();
      assertThat(store().validToken(pool, "u1", t1)).isFalse();
      assertThat(store().owners(pool)).isEqualTo(Map.of("u2", new Ownership("u2", "m1", s1, ta)));

      long t3 = store().claim(pool, "u1", "m2", s2).orElseThrow();
      assertThat(t3).isGreaterThan(ta);
      assertThat(store().releaseUnit(pool, "u1", "m1", t1)).as("must not delete the new owner's claim").isFalse();
      assertThat(store().owners(pool).get("u1")).isEqualTo(new Ownership("u1", "m2", s2, t3));

      assertThat(store().releaseUnit(pool, "u2", "m1", ta)).isTrue();
      assertThat(released.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
          .as("refused releases announced nothing").isEqualTo("u2");
      assertThat(store().owners(pool)).containsOnlyKeys("u1");
    }
  }

  @Test
  void poolsAreIndependent() {
    String a = key("pool-a");
    String b = key("pool-b");
    long sa = store().register(a, "m1", 1, 1, LONG_TTL);
    long sb = store().register(b, "m1", 2, 2, LONG_TTL);
    long ta = store().claim(a, "u", "m1", sa).orElseThrow();
    long tb = store().claim(b, "u", "m1", sb).orElseThrow();
    store().deregister(a, "m1", sa);
    assertThat(store().list(a)).isEmpty();
    assertThat(store().list(b)).containsExactly("m1");
    assertThat(store().validToken(a, "u", ta)).isFalse();
    assertThat(store().validToken(b, "u", tb)).isTrue();
    assertThat(store().members(b).get("m1").affinity()).isEqualTo(2);
  }

  @Test
  void unicodeAndSeparatorsInMemberIdsAndUnits() throws Exception {
    String pool = key("サービス|😀");
    String member = "ñandú|😀:8080";
    String unit = "ключ|🔑|42";
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().subscribe(Store.ownersChannel(pool), got::add)) {
      long s = store().register(pool, member, 1, 1, LONG_TTL);
      long t = store().claim(pool, unit, member, s).orElseThrow();
      assertThat(peer().members(pool)).containsOnlyKeys(member);
      assertThat(peer().owners(pool)).isEqualTo(Map.of(unit, new Ownership(unit, member, s, t)));
      assertThat(peer().validToken(pool, unit, t)).isTrue();
      assertThat(peer().list(pool)).containsExactly(member);
      assertThat(store().releaseUnit(pool, unit, member, t)).isTrue();
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(unit);
      store().deregister(pool, member, s);
      assertThat(store().list(pool)).isEmpty();
    }
  }

  // ---------------------------------------------------------------- notification

  @Test
  void subscriptionReceivesThePublishNotification() throws Exception {
    String h = key("table");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().subscribe(Store.notifyChannel(h), got::add)) {
      Lease lease = tableLease(store(), h, "g1", "d1");
      store().publish(lease, h, "g1", Map.of("m1", "u1"));
      store().publish(lease, h, "g1", Map.of("m1", "u2"));
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("1");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("2");
    }
  }

  @Test
  void notifyReachesEverySubscriberUntilItCloses() throws Exception {
    String channel = key("chan");
    BlockingQueue<String> a = new LinkedBlockingQueue<>();
    BlockingQueue<String> b = new LinkedBlockingQueue<>();
    Subscription subA = store().subscribe(channel, a::add);
    try (Subscription subB = peer().subscribe(channel, b::add)) {
      store().notify(channel, "one");
      assertThat(a.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("one");
      assertThat(b.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("one");

      subA.close();
      subA.close(); // idempotent
      peer().notify(channel, "two");
      // b is the barrier: once b got "two", a would have got it too if still subscribed (same channel, in order)
      assertThat(b.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("two");
      assertThat(a.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }
    store().notify(key("nobody-listens"), "x");
  }

  @Test
  void aFailingListenerDoesNotStopDelivery() throws Exception {
    String channel = key("chan");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription bad = store().subscribe(channel, m -> {
          throw new IllegalStateException("listener bug");
        });
        Subscription good = store().subscribe(channel, got::add)) {
      store().notify(channel, "1");
      store().notify(channel, "2");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("1");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("2");
    }
  }

  // ---------------------------------------------------------------- unicode

  @Test
  void unicodeKeysAndValuesRoundTrip() throws Exception {
    String list = key("サービス-列表-😀");
    assertThat(store().addToList(list, "ñandú:8080")).isTrue();
    assertThat(store().addToList(list, "Ωμέγα-😀")).isTrue();
    assertThat(store().addToList(list, "ñandú:8080")).isFalse();
    assertThat(peer().list(list)).containsExactly("Ωμέγα-😀", "ñandú:8080");
    assertThat(store().removeFromList(list, "Ωμέγα-😀")).isTrue();

    String h = key("分配-table-ü");
    String group = "grüppe-组";
    Lease lease = store().tryAcquire(Store.tableLeaseName(h, group), "distributör-😀", Duration.ofSeconds(30))
        .orElseThrow();
    assertThat(store().currentLeader(Store.tableLeaseName(h, group))).contains(lease);
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = store().subscribe(Store.notifyChannel(h), got::add)) {
      store().publish(lease, h, group, Map.of("мир:1", "ключ-1,🔑-2", "é", ""));
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("1");
    }
    assertThat(peer().hash(h)).isEqualTo(Map.of("мир:1", "ключ-1,🔑-2", "é", ""));
    assertThat(store().renew(lease, Duration.ofSeconds(30))).isTrue();
    store().release(lease);
    assertThat(store().currentLeader(lease.name())).isEmpty();

    String channel = key("канал-📣");
    BlockingQueue<String> msgs = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().subscribe(channel, msgs::add)) {
      store().notify(channel, "héllo 世界 🌍");
      assertThat(msgs.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("héllo 世界 🌍");
    }
  }

  // ---------------------------------------------------------------- helpers

  /** Runs {@code n} tasks released at once; returns their results in task order. */
  protected static <T> List<T> race(int n, java.util.function.IntFunction<Callable<T>> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Callable<T> c = task.apply(i);
        futures.add(pool.submit(() -> {
          start.await();
          return c.call();
        }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
