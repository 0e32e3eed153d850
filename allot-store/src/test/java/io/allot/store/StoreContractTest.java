package io.allot.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
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
    assertThat(store().seedKeys().list(key("nothing"))).isEmpty();
  }

  @Test
  void addToListPushesAtTheHeadOnlyIfAbsent() {
    String k = key("services");
    assertThat(store().seedKeys().addToList(k, "a:1")).isTrue();
    assertThat(store().seedKeys().addToList(k, "b:2")).isTrue();
    assertThat(store().seedKeys().addToList(k, "a:1")).isFalse();
    assertThat(peer().seedKeys().addToList(k, "b:2")).isFalse();
    assertThat(store().seedKeys().list(k)).containsExactly("b:2", "a:1");
  }

  @Test
  void addToListIsAtomicUnderConcurrency() throws Exception {
    String k = key("race");
    int threads = 16;
    List<Boolean> results = race(threads, i -> () -> (i % 2 == 0 ? store() : peer()).seedKeys().addToList(k, "same"));
    assertThat(results).containsOnlyOnce(true);
    assertThat(store().seedKeys().list(k)).containsExactly("same");

    String k2 = key("race2");
    List<Boolean> distinct = race(threads, i -> () -> store().seedKeys().addToList(k2, "v" + (i % 4)));
    assertThat(distinct.stream().filter(b -> b).count()).isEqualTo(4);
    assertThat(store().seedKeys().list(k2)).containsExactlyInAnyOrder("v0", "v1", "v2", "v3");
  }

  @Test
  void removeFromListRemovesEveryOccurrence() {
    String k = key("units");
    store().seedKeys().replaceList(k, List.of("a", "b", "a", "c"));
    assertThat(store().seedKeys().removeFromList(k, "a")).isTrue();
    assertThat(store().seedKeys().list(k)).containsExactly("b", "c");
    assertThat(store().seedKeys().removeFromList(k, "a")).isFalse();
    assertThat(store().seedKeys().removeFromList(key("missing"), "a")).isFalse();
    assertThat(store().seedKeys().removeFromList(k, "b")).isTrue();
    assertThat(store().seedKeys().removeFromList(k, "c")).isTrue();
    assertThat(store().seedKeys().list(k)).isEmpty();
    assertThat(store().seedKeys().addToList(k, "d")).isTrue();
    assertThat(store().seedKeys().list(k)).containsExactly("d");
  }

  @Test
  void replaceListReplacesInOrderAndEmptyDeletes() {
    String k = key("units");
    store().seedKeys().replaceList(k, List.of("x", "y"));
    store().seedKeys().replaceList(k, List.of("u1", "u2", "u3"));
    assertThat(peer().seedKeys().list(k)).containsExactly("u1", "u2", "u3");
    store().seedKeys().replaceList(k, List.of());
    assertThat(store().seedKeys().list(k)).isEmpty();
  }

  @Test
  void replaceListHandlesLargeLists() {
    String k = key("big");
    List<String> values = IntStream.range(0, 10_000).mapToObj(i -> "unit-" + i).collect(Collectors.toList());
    store().seedKeys().replaceList(k, values);
    assertThat(store().seedKeys().list(k)).isEqualTo(values);
  }

  @Test
  void missingHashIsEmpty() {
    assertThat(store().seedKeys().hash(key("nothing"))).isEmpty();
  }

  @Test
  void usingAListAsAHashFails() {
    String k = key("list");
    store().seedKeys().replaceList(k, List.of("a"));
    assertThatThrownBy(() -> store().seedKeys().hash(k)).isInstanceOf(IllegalStateException.class);
    Lease lease = store().leadership().tryAcquire(Tables.leaseName(k, "g"), "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThatThrownBy(() -> store().tables().publish(lease, k, "g", Map.of("m", "u")))
        .isInstanceOf(IllegalStateException.class);
    assertThat(store().seedKeys().list(k)).containsExactly("a");
    assertThat(store().tables().epoch(k)).isZero();
  }

  // ---------------------------------------------------------------- clock

  @Test
  void timeMillisIsTheStoreClockAndAdvances() {
    long t0 = store().clock().timeMillis();
    assertThat(t0).isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(86_400_000L));
    waiting().until(() -> store().clock().timeMillis() >= t0 + 20);
    long a = store().clock().timeMillis();
    long b = store().clock().timeMillis();
    assertThat(b).isGreaterThanOrEqualTo(a);
  }

  // ---------------------------------------------------------------- leases

  @Test
  void leaseIsExclusive() {
    String name = key("leader");
    Lease lease = store().leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThat(lease.name()).isEqualTo(name);
    assertThat(lease.holder()).isEqualTo("d1");
    assertThat(peer().leadership().tryAcquire(name, "d2", Duration.ofSeconds(30))).isEmpty();
    assertThat(store().leadership().tryAcquire(name, "d1", Duration.ofSeconds(30))).as("not re-entrant").isEmpty();
    assertThat(peer().leadership().current(name)).contains(lease);
    assertThat(store().leadership().current(key("other"))).isEmpty();
  }

  @Test
  void concurrentAcquisitionHasOneWinner() throws Exception {
    String name = key("contended");
    List<Optional<Lease>> results =
        race(16, i -> () -> (i % 2 == 0 ? store() : peer()).leadership().tryAcquire(name, "d" + i, Duration.ofSeconds(30)));
    List<Lease> winners = results.stream().flatMap(Optional::stream).collect(Collectors.toList());
    assertThat(winners).hasSize(1);
    assertThat(store().leadership().current(name)).contains(winners.get(0));
  }

  @Test
  void tokenStrictlyIncreasesOnEveryAcquisition() {
    String name = key("leader");
    long last = Long.MIN_VALUE;
    for (int i = 0; i < 5; i++) {
      Lease lease = store().leadership().tryAcquire(name, i % 2 == 0 ? "d1" : "d2", Duration.ofSeconds(30)).orElseThrow();
      assertThat(lease.token()).isGreaterThan(last);
      last = lease.token();
      store().leadership().release(lease);
    }
    Lease viaPeer = peer().leadership().tryAcquire(name, "d3", Duration.ofSeconds(30)).orElseThrow();
    assertThat(viaPeer.token()).isGreaterThan(last);
  }

  @Test
  void leaseExpiresByStoreTimeAndTheNextTokenIsGreater() {
    String name = key("leader");
    Lease first = store().leadership().tryAcquire(name, "d1", Duration.ofMillis(150)).orElseThrow();
    waiting().until(() -> store().leadership().current(name).isEmpty());
    Lease second = peer().leadership().tryAcquire(name, "d2", Duration.ofSeconds(30)).orElseThrow();
    assertThat(second.token()).isGreaterThan(first.token());
  }

  @Test
  void renewExtendsTheLease() {
    String name = key("leader");
    Lease lease = store().leadership().tryAcquire(name, "d1", Duration.ofMillis(300)).orElseThrow();
    assertThat(store().leadership().renew(lease, Duration.ofSeconds(30))).isTrue();
    // held well past the original 300 ms
    await().during(Duration.ofMillis(700)).atMost(PATIENCE).pollInterval(Duration.ofMillis(20))
        .until(() -> store().leadership().current(name).equals(Optional.of(lease)));
    assertThat(peer().leadership().tryAcquire(name, "d2", Duration.ofSeconds(1))).isEmpty();
  }

  @Test
  void renewFailsAfterExpiry() {
    String name = key("leader");
    Lease lease = store().leadership().tryAcquire(name, "d1", Duration.ofMillis(100)).orElseThrow();
    waiting().until(() -> store().leadership().current(name).isEmpty());
    assertThat(store().leadership().renew(lease, Duration.ofSeconds(30))).isFalse();
    assertThat(store().leadership().current(name)).as("a failed renew must not resurrect the lease").isEmpty();
  }

  @Test
  void renewFailsAfterSomeoneElseAcquired() {
    String name = key("leader");
    Lease old = store().leadership().tryAcquire(name, "d1", Duration.ofMillis(100)).orElseThrow();
    waiting().until(() -> store().leadership().current(name).isEmpty());
    Lease now = peer().leadership().tryAcquire(name, "d2", Duration.ofSeconds(30)).orElseThrow();
    assertThat(store().leadership().renew(old, Duration.ofSeconds(30))).isFalse();
    assertThat(store().leadership().current(name)).contains(now);
  }

  @Test
  void renewNeedsTheSameToken() {
    String name = key("leader");
    Lease first = store().leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    store().leadership().release(first);
    Lease second = store().leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThat(store().leadership().renew(first, Duration.ofSeconds(30))).as("same holder, stale token").isFalse();
    assertThat(store().leadership().renew(new Lease(name, "d2", second.token()), Duration.ofSeconds(30))).isFalse();
    assertThat(store().leadership().renew(second, Duration.ofSeconds(30))).isTrue();
  }

  @Test
  void releaseIsCompareAndDelete() {
    String name = key("leader");
    Lease old = store().leadership().tryAcquire(name, "d1", Duration.ofMillis(100)).orElseThrow();
    waiting().until(() -> store().leadership().current(name).isEmpty());
    Lease now = peer().leadership().tryAcquire(name, "d2", Duration.ofSeconds(30)).orElseThrow();
    store().leadership().release(old);
    assertThat(store().leadership().current(name)).as("a stale release must not delete the new lease").contains(now);
    store().leadership().release(new Lease(name, "d2", now.token() - 1));
    assertThat(store().leadership().current(name)).contains(now);
    peer().leadership().release(now);
    assertThat(store().leadership().current(name)).isEmpty();
    store().leadership().release(now); // idempotent
    Lease next = store().leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThat(next.token()).isGreaterThan(now.token());
  }

  @Test
  void ttlBelowOneMillisecondIsRejected() {
    assertThatThrownBy(() -> store().leadership().tryAcquire(key("l"), "d1", Duration.ofNanos(10)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().leadership().tryAcquire(key("l"), "d1", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---------------------------------------------------------------- fenced publication

  private Lease tableLease(Store s, String hashKey, String pool, String holder) {
    return s.leadership().tryAcquire(Tables.leaseName(hashKey, pool), holder, Duration.ofSeconds(30)).orElseThrow();
  }

  @Test
  void tableLeaseNameJoinsHashKeyAndPool() {
    assertThat(Tables.leaseName("sys-matching-table", "g1")).isEqualTo("sys-matching-table:g1");
    assertThat(Tables.leaseName("app:table", "app:robots:list")).isEqualTo("app:table:app%3Arobots%3Alist");
    assertThat(Tables.leaseName("t", "a%3Ab")).as("injective").isNotEqualTo(Tables.leaseName("t", "a:b"));
    assertThatThrownBy(() -> Tables.leaseName("t", "")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Tables.leaseName("", "g")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void publishWritesFieldsAndIncrementsTheEpoch() {
    String h = key("table");
    assertThat(store().tables().epoch(h)).isZero();
    Lease lease = tableLease(store(), h, "g1", "d1");
    assertThat(store().tables().publish(lease, h, "g1", Map.of("m1:1", "u1,u2", "m2:1", "u3"))).isEqualTo(1);
    assertThat(peer().seedKeys().hash(h)).isEqualTo(Map.of("m1:1", "u1,u2", "m2:1", "u3"));
    assertThat(store().tables().publish(lease, h, "g1", Map.of("m1:1", "u1,u2", "m2:1", "u3"))).isEqualTo(2);
    assertThat(peer().tables().epoch(h)).isEqualTo(2);
    assertThat(store().tables().epoch(key("other"))).isZero();
  }

  @Test
  void publishRemovesTheGroupsStaleFields() {
    String h = key("table");
    Lease lease = tableLease(store(), h, "g1", "d1");
    store().tables().publish(lease, h, "g1", Map.of("m1", "u1", "m2", "u2", "m3", "u3"));
    store().tables().publish(lease, h, "g1", Map.of("m1", "u1,u2", "m4", "u3"));
    assertThat(store().seedKeys().hash(h)).isEqualTo(Map.of("m1", "u1,u2", "m4", "u3"));
    store().tables().publish(lease, h, "g1", Map.of());
    assertThat(store().seedKeys().hash(h)).isEmpty();
    assertThat(store().tables().epoch(h)).isEqualTo(3);
  }

  @Test
  void publishNeverRemovesAnotherGroupsFields() {
    String h = key("table");
    Lease g1 = tableLease(store(), h, "g1", "d1");
    Lease g2 = tableLease(peer(), h, "g2", "d2");
    store().tables().publish(g1, h, "g1", Map.of("a1", "u1", "a2", "u2"));
    peer().tables().publish(g2, h, "g2", Map.of("b1", "u3"));
    store().tables().publish(g1, h, "g1", Map.of());
    assertThat(store().seedKeys().hash(h)).isEqualTo(Map.of("b1", "u3"));

    // a member moving from g2 to g1: the last writer owns the field; g2 dropping it later must not delete it
    store().tables().publish(g1, h, "g1", Map.of("b1", "u3,u4"));
    peer().tables().publish(g2, h, "g2", Map.of("b2", "u5"));
    assertThat(store().seedKeys().hash(h)).isEqualTo(Map.of("b1", "u3,u4", "b2", "u5"));
    assertThat(store().tables().epoch(h)).isEqualTo(5);
  }

  @Test
  void publishWithAStaleLeaseIsFencedAndChangesNothing() {
    String h = key("table");
    String name = Tables.leaseName(h, "g1");
    Lease old = store().leadership().tryAcquire(name, "d1", Duration.ofMillis(100)).orElseThrow();
    store().tables().publish(old, h, "g1", Map.of("m1", "u1"));
    waiting().until(() -> store().leadership().current(name).isEmpty());

    assertThatThrownBy(() -> store().tables().publish(old, h, "g1", Map.of("m1", "u2")))
        .as("expired, nobody holds it")
        .isInstanceOf(FencedException.class)
        .hasMessageContaining("d1");

    Lease now = peer().leadership().tryAcquire(name, "d2", Duration.ofSeconds(30)).orElseThrow();
    assertThatThrownBy(() -> store().tables().publish(old, h, "g1", Map.of("m9", "u9")))
        .isInstanceOfSatisfying(FencedException.class, e -> {
          assertThat(e.lease()).isEqualTo(old);
          assertThat(e.current()).contains(now);
          assertThat(e.getMessage()).contains("d1").contains("d2");
        });
    assertThatThrownBy(() -> store().tables().publish(new Lease(name, "d1", now.token()), h, "g1", Map.of("m9", "u9")))
        .as("right token, wrong holder").isInstanceOf(FencedException.class);
    assertThat(store().seedKeys().hash(h)).isEqualTo(Map.of("m1", "u1"));
    assertThat(store().tables().epoch(h)).isEqualTo(1);

    assertThat(peer().tables().publish(now, h, "g1", Map.of("m2", "u1"))).isEqualTo(2);
    peer().leadership().release(now);
    assertThatThrownBy(() -> peer().tables().publish(now, h, "g1", Map.of("m3", "u1")))
        .as("released").isInstanceOf(FencedException.class);
    assertThat(store().seedKeys().hash(h)).isEqualTo(Map.of("m2", "u1"));
  }

  @Test
  void publishNeedsTheGroupsOwnLease() {
    String h = key("table");
    Lease g1 = tableLease(store(), h, "g1", "d1");
    assertThatThrownBy(() -> store().tables().publish(g1, h, "g2", Map.of("m", "u")))
        .isInstanceOf(IllegalArgumentException.class);
    Lease plain = store().leadership().tryAcquire(key("leader"), "d1", Duration.ofSeconds(30)).orElseThrow();
    assertThatThrownBy(() -> store().tables().publish(plain, h, "g1", Map.of("m", "u")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().tables().epoch(h)).isZero();
  }

  @Test
  void publishHandlesManyFields() {
    String h = key("table");
    Lease lease = tableLease(store(), h, "g1", "d1");
    Map<String, String> many = new LinkedHashMap<>();
    for (int i = 0; i < 3001; i++) {
      many.put("10.0." + (i / 250) + "." + (i % 250) + ":8080", "u" + i);
    }
    store().tables().publish(lease, h, "g1", many);
    assertThat(store().seedKeys().hash(h)).isEqualTo(many);
    store().tables().publish(lease, h, "g1", Map.of("m", "u"));
    assertThat(store().seedKeys().hash(h)).isEqualTo(Map.of("m", "u"));
  }

  /**
   * A store may send only what changed since the pool's previous publication, but the result is always that of a
   * full one: after the table was deleted under it, every field is written again.
   */
  @Test
  void aPublicationAfterTheTableWasDeletedWritesEveryField() {
    String h = key("table");
    Lease lease = tableLease(store(), h, "g1", "d1");
    store().tables().publish(lease, h, "g1", Map.of("m1", "u1", "m2", "u2"));
    peer().seedKeys().replaceList(h, List.of()); // an operator deletes the table
    assertThat(store().tables().read(h)).isEmpty();
    long epoch = store().tables().publish(lease, h, "g1", Map.of("m1", "u1", "m2", "u2,u3"));
    assertThat(store().tables().read(h)).isEqualTo(Map.of("m1", "u1", "m2", "u2,u3"));
    assertThat(store().tables().publish(lease, h, "g1", Map.of("m1", "u1", "m2", "u2"))).isEqualTo(epoch + 1);
    assertThat(peer().tables().read(h)).isEqualTo(Map.of("m1", "u1", "m2", "u2"));
  }

  /** ... and after another pool overwrote and then dropped one of its fields, that field is written again. */
  @Test
  void aPublicationAfterAnotherGroupTookAFieldWritesItAgain() {
    String h = key("table");
    Lease g1 = tableLease(store(), h, "g1", "d1");
    Lease g2 = tableLease(peer(), h, "g2", "d2");
    store().tables().publish(g1, h, "g1", Map.of("a1", "u1", "a2", "u2"));
    peer().tables().publish(g2, h, "g2", Map.of("a1", "x"));
    peer().tables().publish(g2, h, "g2", Map.of());
    assertThat(store().tables().read(h)).isEqualTo(Map.of("a2", "u2"));
    store().tables().publish(g1, h, "g1", Map.of("a1", "u1", "a2", "u2", "a3", "u3"));
    assertThat(peer().tables().read(h)).isEqualTo(Map.of("a1", "u1", "a2", "u2", "a3", "u3"));
    store().tables().publish(g1, h, "g1", Map.of("a2", "u2,u1", "a3", "u3"));
    assertThat(peer().tables().read(h)).isEqualTo(Map.of("a2", "u2,u1", "a3", "u3"));
  }

  /** ... and a new leader of the pool (another lease) publishes in full, whatever this client published before. */
  @Test
  void aPublicationUnderANewLeaseWritesEveryField() {
    String h = key("table");
    String name = Tables.leaseName(h, "g1");
    Lease first = store().leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    store().tables().publish(first, h, "g1", Map.of("m1", "u1", "m2", "u2"));
    store().leadership().release(first);
    Lease other = peer().leadership().tryAcquire(name, "d2", Duration.ofSeconds(30)).orElseThrow();
    peer().tables().publish(other, h, "g1", Map.of("m1", "u9"));
    peer().leadership().release(other);
    Lease again = store().leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    store().tables().publish(again, h, "g1", Map.of("m1", "u1", "m2", "u2"));
    assertThat(peer().tables().read(h)).isEqualTo(Map.of("m1", "u1", "m2", "u2"));
  }

  // ---------------------------------------------------------------- hashField

  @Test
  void hashFieldReadsOneField() {
    String h = key("table");
    assertThat(store().seedKeys().hashField(h, "m1")).as("missing hash").isNull();
    Lease lease = tableLease(store(), h, "g1", "d1");
    store().tables().publish(lease, h, "g1", Map.of("m1", "u1,u2", "m2", ""));
    assertThat(peer().seedKeys().hashField(h, "m1")).isEqualTo("u1,u2");
    assertThat(store().seedKeys().hashField(h, "m2")).as("empty value is not missing").isEqualTo("");
    assertThat(store().seedKeys().hashField(h, "m3")).as("missing field").isNull();
    String list = key("list");
    store().seedKeys().replaceList(list, List.of("a"));
    assertThatThrownBy(() -> store().seedKeys().hashField(list, "a")).isInstanceOf(IllegalStateException.class);
  }

  // ---------------------------------------------------------------- tables: reads

  @Test
  void tablesReadTheWholeTableAndOneMember() {
    String h = key("table");
    assertThat(store().tables().read(h)).as("never published").isEmpty();
    assertThat(store().tables().read(h, "m1")).isEmpty();
    Lease lease = tableLease(store(), h, "g1", "d1");
    store().tables().publish(lease, h, "g1", Map.of("m1", "u1,u2", "m2", ""));
    assertThat(peer().tables().read(h)).isEqualTo(Map.of("m1", "u1,u2", "m2", ""));
    assertThat(peer().tables().read(h, "m1")).contains("u1,u2");
    assertThat(store().tables().read(h, "m2")).as("an empty field is not a missing one").contains("");
    assertThat(store().tables().read(h, "m3")).isEmpty();
    store().tables().publish(lease, h, "g1", Map.of("m2", "u1"));
    assertThat(peer().tables().read(h)).isEqualTo(Map.of("m2", "u1"));
  }

  /**
   * The role decodes its own fields ({@link io.allot.core.assign.TableCodec}): units in field order, empty pieces
   * dropped, nothing trimmed, an empty or missing field is no units, members in byte order, a unit listed twice
   * left for the reader to resolve.
   */
  @Test
  void tablesReadDecodedUnits() {
    String h = key("table");
    assertThat(store().tables().units(h)).as("never published").isEmpty();
    assertThat(store().tables().units(h, "m1")).isEmpty();
    Lease lease = tableLease(store(), h, "g1", "d1");
    store().tables().publish(lease, h, "g1", Map.of("m2", "u2,,u1,", "m1", "u3", "m3", "", "m4", " u4 ,u3"));
    assertThat(peer().tables().units(h)).containsExactly(Map.entry("m1", List.of("u3")),
        Map.entry("m2", List.of("u2", "u1")), Map.entry("m3", List.of()), Map.entry("m4", List.of(" u4 ", "u3")));
    assertThat(peer().tables().units(h, "m2")).containsExactly("u2", "u1");
    assertThat(store().tables().units(h, "m3")).as("an empty field").isEmpty();
    assertThat(store().tables().units(h, "m5")).as("a missing field").isEmpty();
    String list = key("list");
    store().seedKeys().replaceList(list, List.of("a"));
    assertThatThrownBy(() -> store().tables().units(list)).isInstanceOf(IllegalStateException.class);
  }

  // ---------------------------------------------------------------- membership

  /** Long enough never to expire during a test on a loaded machine; expiry is forced with {@link #expireMember}. */
  protected static final Duration LONG_TTL = Duration.ofSeconds(30);

  /**
   * Makes a live registration expire: renews it to 1 ms (deterministic: it is live now), then waits until the store
   * reports it expired by more than the store's clock margin (only then may its units be claimed or its id be
   * registered again). An expired lease is never revived, so it stays expired.
   */
  protected void expireMember(String pool, String id, long session) {
    assertThat(store().membership(pool).renew(id, session, Duration.ofMillis(1))).as("renew %s to 1 ms", id).isTrue();
    long margin = store().safety().clockMargin().toMillis();
    waiting().until(() -> store().membership(pool).members().get(id).leaseUntilMillis() + margin
        < store().clock().timeMillis());
  }

  @Test
  void memberMetadataRoundTripsThroughRegisterAndUpdate() {
    String pool = key("services");
    MemberMeta meta = MemberMeta.of(3, 40).with(MemberMeta.VERSION, "1.2.3").with(MemberMeta.ZONE, "eu-1")
        .with("label.team", "a b&c=d/é 😀");
    long s = store().membership(pool).register("m1:1", meta, LONG_TTL);
    MemberRecord r = peer().membership(pool).members().get("m1:1");
    assertThat(r.meta()).isEqualTo(meta);
    assertThat(r.meta().version()).isEqualTo("1.2.3");
    assertThat(r.affinity()).isEqualTo(3);
    assertThat(r.capacity()).isEqualTo(40);
    MemberMeta next = meta.withAffinity(0).with(MemberMeta.ZONE, null).with(MemberMeta.VERSION, "2.0");
    assertThat(store().membership(pool).update("m1:1", s, next)).isTrue();
    assertThat(peer().membership(pool).members().get("m1:1").meta()).isEqualTo(next);
    assertThat(peer().membership(pool).members().get("m1:1").meta().zone()).isNull();
    assertThat(store().membership(pool).update("m1:1", s + 1000, meta)).as("not the current session").isFalse();
    assertThat(peer().membership(pool).members().get("m1:1").meta()).isEqualTo(next);
  }

  @Test
  void defaultMetadataHasNoAttributes() {
    String pool = key("services");
    store().membership(pool).register("m1:1", MemberMeta.DEFAULT, LONG_TTL);
    MemberRecord r = peer().membership(pool).members().get("m1:1");
    assertThat(r.meta()).isEqualTo(MemberMeta.DEFAULT);
    assertThat(r.capacity()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void registerListsTheMemberOnceAndSessionsIncrease() {
    String pool = key("services");
    long s1 = store().membership(pool).register("m1:1", MemberMeta.of(1, 10), LONG_TTL);
    long s2 = peer().membership(pool).register("m2:1", MemberMeta.of(2, Integer.MAX_VALUE), LONG_TTL);
    assertThatThrownBy(() -> store().membership(pool).register("m1:1", MemberMeta.of(3, 5), LONG_TTL))
        .as("m1:1 is live under s1").isInstanceOf(MemberConflictException.class).hasMessageContaining("'m1:1'");
    expireMember(pool, "m1:1", s1);
    long s3 = store().membership(pool).register("m1:1", MemberMeta.of(3, 5), LONG_TTL);
    assertThat(s2).isGreaterThan(s1);
    assertThat(s3).isGreaterThan(s2);
    assertThat(store().seedKeys().list(pool)).containsExactly("m2:1", "m1:1");

    long now = store().clock().timeMillis();
    Map<String, MemberRecord> members = peer().membership(pool).members();
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
    assertThat(store().seedKeys().addToList(pool, "m3:1")).isTrue();
    long s4 = store().membership(pool).register("m3:1", MemberMeta.of(1, 1), LONG_TTL);
    assertThat(s4).isGreaterThan(s3);
    assertThat(store().seedKeys().list(pool)).containsExactly("m3:1", "m2:1", "m1:1");
    assertThat(store().membership(key("other-pool")).members()).isEmpty();
  }

  @Test
  void reRegisteringALiveIdFailsAndAnExpiredOneIsSuperseded() {
    String pool = key("services");
    long old = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    long t1 = store().ownership(pool).claim("u1", "m1", old).orElseThrow();
    long s2 = peer().membership(pool).register("m2", MemberMeta.of(1, 10), LONG_TTL);
    assertThat(peer().ownership(pool).claim("u1", "m2", s2)).as("owned by a live session").isEmpty();

    // a second process advertising the same id: refused, and the live session keeps its unit
    MemberConflictException conflict = catchThrowableOfType(MemberConflictException.class,
        () -> peer().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL));
    assertThat(conflict).isNotNull();
    assertThat(conflict.id()).isEqualTo("m1");
    assertThat(conflict.liveUntilMillis()).isGreaterThan(store().clock().timeMillis());
    assertThat(store().membership(pool).members().get("m1").session()).isEqualTo(old);
    assertThat(store().ownership(pool).validToken("u1", "m1", old, t1)).isTrue();
    assertThat(store().membership(pool).renew("m1", old, LONG_TTL)).isTrue();

    expireMember(pool, "m1", old);
    long current = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    assertThat(current).isGreaterThan(old);
    assertThat(store().membership(pool).renew("m1", old, LONG_TTL)).isFalse();
    assertThat(store().membership(pool).update("m1", old, MemberMeta.of(2, 2))).isFalse();
    assertThat(store().ownership(pool).claim("u2", "m1", old)).isEmpty();
    assertThat(store().ownership(pool).validToken("u1", "m1", old, t1)).isFalse();

    long t2 = peer().ownership(pool).claim("u1", "m2", s2).orElseThrow();
    assertThat(t2).isGreaterThan(t1);
    assertThat(store().ownership(pool).owners()).isEqualTo(Map.of("u1", new UnitOwner("u1", "m2", s2, t2)));
    assertThat(store().ownership(pool).claim("u1", "m1", current)).as("now owned by m2").isEmpty();

    store().membership(pool).deregister("m1", old); // superseded: no effect
    assertThat(store().seedKeys().list(pool)).containsExactly("m2", "m1");
    assertThat(store().membership(pool).members().get("m1").session()).isEqualTo(current);
    assertThat(store().membership(pool).renew("m1", current, LONG_TTL)).isTrue();
    assertThat(store().membership(pool).members().get("m1").affinity()).isEqualTo(1);
  }

  @Test
  void tokensAndSessionsAreNeverBelowTheStoreTimeInMicroseconds() {
    String pool = key("services");
    long before = store().clock().timeMillis() * 1000L;
    long s = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    long t = store().ownership(pool).claim("u", "m1", s).orElseThrow();
    long lease = store().leadership().tryAcquire(key("lease"), "h", LONG_TTL).orElseThrow().token();
    assertThat(s).isGreaterThan(before);
    assertThat(t).isGreaterThan(s);
    assertThat(lease).isGreaterThan(before);
  }

  @Test
  void aClaimWaitsForTheOwnersLeaseToBeOverByTheClockMargin() {
    String pool = key("services");
    long margin = store().safety().clockMargin().toMillis();
    long s1 = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    long s2 = peer().membership(pool).register("m2", MemberMeta.of(1, 10), LONG_TTL);
    long t1 = store().ownership(pool).claim("u", "m1", s1).orElseThrow();
    assertThat(store().membership(pool).renew("m1", s1, Duration.ofMillis(1))).isTrue();
    long until = store().membership(pool).members().get("m1").leaseUntilMillis();
    long[] grantedAt = new long[1];
    waiting().until(() -> {
      OptionalLong got = peer().ownership(pool).claim("u", "m2", s2);
      grantedAt[0] = store().clock().timeMillis();
      return got.isPresent();
    });
    assertThat(grantedAt[0]).as("granted at store time, lease until %d, margin %d ms", until, margin)
        .isGreaterThanOrEqualTo(until + margin - 1); // - 1: a store may round its clock and expiries apart
    assertThat(store().ownership(pool).owners().get("u").token()).isGreaterThan(t1);
  }

  @Test
  void removeIfExpiredNeverDropsALiveMember() {
    String pool = key("services");
    long s1 = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    long s2 = store().membership(pool).register("m2", MemberMeta.of(1, 10), LONG_TTL);
    assertThat(peer().membership(pool).removeIfExpired("m1", s1)).as("live").isFalse();
    assertThat(peer().membership(pool).removeIfExpired("m2", s1)).as("not its session").isFalse();
    expireMember(pool, "m1", s1);
    assertThat(peer().membership(pool).removeIfExpired("m1", s1 + 1)).as("not its session").isFalse();
    assertThat(peer().membership(pool).removeIfExpired("m1", s1)).isTrue();
    assertThat(store().membership(pool).members()).containsOnlyKeys("m2");
    assertThat(store().seedKeys().list(pool)).containsExactly("m2");
    assertThat(peer().membership(pool).removeIfExpired("m1", s1)).as("gone already").isFalse();
    assertThat(store().membership(pool).renew("m2", s2, LONG_TTL)).isTrue();
  }

  @Test
  void aReleaseWithAHoldIsListedUntilTheHoldEnds() {
    String pool = key("services");
    long s = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    long t1 = store().ownership(pool).claim("u1", "m1", s).orElseThrow();
    long t2 = store().ownership(pool).claim("u2", "m1", s).orElseThrow();
    assertThat(store().ownership(pool).holds()).isEmpty();
    long before = store().clock().timeMillis();
    assertThat(store().ownership(pool).release("u1", "m1", t1, Duration.ofMillis(400))).isTrue();
    assertThat(store().ownership(pool).release("u2", "m1", t2 + 1, Duration.ofSeconds(30))).as("stale").isFalse();
    assertThat(store().ownership(pool).release("u2", "m1", t2, Duration.ZERO)).isTrue();
    Map<String, UnitHold> holds = peer().ownership(pool).holds();
    assertThat(holds).containsOnlyKeys("u1");
    assertThat(holds.get("u1").member()).isEqualTo("m1");
    assertThat(holds.get("u1").untilMillis()).isBetween(before + 400, store().clock().timeMillis() + 400);
    assertThat(store().ownership(pool).owners()).isEmpty();
    waiting().until(() -> peer().ownership(pool).holds().isEmpty());
    assertThatThrownBy(() -> store().ownership(pool).release("u1", "m1", t1, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void ownersOfReadsJustTheUnitsAsked() {
    String pool = key("services");
    long s = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    long t1 = store().ownership(pool).claim("u1", "m1", s).orElseThrow();
    store().ownership(pool).claim("u2", "m1", s).orElseThrow();
    assertThat(peer().ownership(pool).ownersOf(List.of("u1", "nobody")))
        .isEqualTo(Map.of("u1", new UnitOwner("u1", "m1", s, t1)));
    assertThat(peer().ownership(pool).ownersOf(List.of())).isEmpty();
  }

  @Test
  void safetySettingsAreReported() {
    Safety safety = store().safety();
    assertThat(safety.lostStateGuard()).isPositive();
    assertThat(safety.clockMargin()).isPositive();
    assertThat(safety.findings()).isNotNull();
  }

  @Test
  void claimAllClaimsEachUnitLikeClaim() {
    String pool = key("services");
    long s1 = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    long s2 = peer().membership(pool).register("m2", MemberMeta.of(1, 10), LONG_TTL);
    long t1 = peer().ownership(pool).claim("u1", "m2", s2).orElseThrow();
    long mine = store().ownership(pool).claim("u3", "m1", s1).orElseThrow();

    Map<String, Long> got = store().ownership(pool).claimAll(java.util.List.of("u1", "u2", "u3", "u4"), "m1", s1);
    assertThat(got.keySet()).as("u1 is owned by a live session").containsExactlyInAnyOrder("u2", "u3", "u4");
    assertThat(got.get("u3")).as("a repeated claim returns the token held").isEqualTo(mine);
    assertThat(got.get("u2")).isGreaterThan(t1).isNotEqualTo(got.get("u4"));
    assertThat(store().ownership(pool).owners().get("u2")).isEqualTo(new UnitOwner("u2", "m1", s1, got.get("u2")));
    assertThat(store().ownership(pool).owners().get("u1").member()).isEqualTo("m2");
    assertThat(store().ownership(pool).claimAll(java.util.List.of(), "m1", s1)).isEmpty();

    expireMember(pool, "m1", s1);
    long s1b = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL); // supersedes s1
    assertThat(store().ownership(pool).claimAll(java.util.List.of("u5"), "m1", s1)).as("stale session").isEmpty();
    assertThat(store().ownership(pool).claimAll(java.util.List.of("u2", "u5"), "m1", s1b))
        .as("the old session's units are claimable by the new one").containsOnlyKeys("u2", "u5");
  }

  @Test
  void renewExtendsButNeverRevivesAnExpiredLease() {
    String pool = key("services");
    long s = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    long until0 = store().membership(pool).members().get("m1").leaseUntilMillis();
    assertThat(peer().membership(pool).renew("m1", s, LONG_TTL.multipliedBy(2))).isTrue();
    assertThat(store().membership(pool).members().get("m1").leaseUntilMillis()).isGreaterThan(until0);
    assertThat(store().membership(pool).renew("m1", s + 1_000_000, LONG_TTL)).as("unknown session").isFalse();
    assertThat(store().membership(pool).renew("nobody", s, LONG_TTL)).isFalse();

    expireMember(pool, "m1", s);
    MemberRecord expired = store().membership(pool).members().get("m1");
    assertThat(store().membership(pool).renew("m1", s, LONG_TTL)).isFalse();
    assertThat(peer().membership(pool).renew("m1", s, LONG_TTL)).isFalse();
    assertThat(store().membership(pool).update("m1", s, MemberMeta.of(5, 5))).isFalse();
    assertThat(store().ownership(pool).claim("u1", "m1", s)).isEmpty();
    assertThat(store().membership(pool).members().get("m1")).as("not revived, not changed").isEqualTo(expired);
    assertThat(store().seedKeys().list(pool)).as("expiry does not unlist").containsExactly("m1");

    long again = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    assertThat(again).isGreaterThan(s);
    assertThat(store().membership(pool).renew("m1", again, LONG_TTL)).isTrue();
    assertThat(store().ownership(pool).claim("u1", "m1", again)).isPresent();
  }

  @Test
  void membersShowsExpiredRecordsWithALeaseInThePast() {
    String pool = key("services");
    long t0 = store().clock().timeMillis();
    long s1 = store().membership(pool).register("m1", MemberMeta.of(2, 7), LONG_TTL);
    long s2 = peer().membership(pool).register("m2", MemberMeta.of(1, Integer.MAX_VALUE), LONG_TTL);
    expireMember(pool, "m1", s1);

    Map<String, MemberRecord> members = peer().membership(pool).members();
    long now = store().clock().timeMillis();
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
    assertThat(store().seedKeys().list(pool)).containsExactlyInAnyOrder("m1", "m2");
  }

  @Test
  void updateMemberChangesWeightsKeepsTheLeaseAndNotifies() throws Exception {
    String pool = key("services");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.members(pool), got::add)) {
      long s = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m1");
      MemberRecord before = store().membership(pool).members().get("m1");

      assertThat(store().membership(pool).update("m1", s, MemberMeta.of(0, 3))).isTrue();
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m1");
      assertThat(peer().membership(pool).members().get("m1")).isEqualTo(new MemberRecord("m1", MemberMeta.of(0, 3), s,
          before.leaseUntilMillis()));

      assertThat(store().membership(pool).update("m1", s + 1_000_000, MemberMeta.of(5, 5))).isFalse();
      assertThat(store().membership(pool).update("ghost", s, MemberMeta.of(5, 5))).isFalse();
      assertThatThrownBy(() -> store().membership(pool).update("m1", s, MemberMeta.of(-1, 5)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(store().membership(pool).members().get("m1").affinity()).isZero();
      // barrier: refused updates announced nothing, so the next message is m2's registration
      store().membership(pool).register("m2", MemberMeta.of(1, 1), LONG_TTL);
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m2");
    }
  }

  @Test
  void deregisterUnlistsFreesTheUnitsAndNotifies() throws Exception {
    String pool = key("services");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.members(pool), got::add)) {
      long s1 = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
      long s2 = peer().membership(pool).register("m2", MemberMeta.of(1, 10), LONG_TTL);
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m1");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m2");
      long t1 = store().ownership(pool).claim("u", "m1", s1).orElseThrow();

      store().membership(pool).deregister("m1", s1 + 1_000_000); // not its session: nothing happens
      assertThat(store().seedKeys().list(pool)).containsExactly("m2", "m1");
      assertThat(store().ownership(pool).validToken("u", "m1", s1, t1)).isTrue();

      store().membership(pool).deregister("m1", s1);
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m1");
      assertThat(peer().seedKeys().list(pool)).containsExactly("m2");
      assertThat(peer().membership(pool).members()).containsOnlyKeys("m2");
      assertThat(store().ownership(pool).validToken("u", "m1", s1, t1)).isFalse();
      assertThat(store().membership(pool).renew("m1", s1, LONG_TTL)).isFalse();
      assertThat(store().ownership(pool).claim("u2", "m1", s1)).isEmpty();
      long t2 = peer().ownership(pool).claim("u", "m2", s2).orElseThrow();
      assertThat(t2).isGreaterThan(t1);
      store().membership(pool).deregister("m1", s1); // idempotent

      store().membership(pool).update("m2", s2, MemberMeta.of(2, 2));
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
          .as("neither the refused nor the repeated deregistration was announced").isEqualTo("m2");
      store().membership(pool).deregister("m2", s2);
      assertThat(store().seedKeys().list(pool)).isEmpty();
      assertThat(store().membership(pool).members()).isEmpty();
    }
  }

  @Test
  void registeringIntoAKeyThatIsNotAListFailsAndChangesNothing() {
    String h = key("table");
    Lease lease = tableLease(store(), h, "g1", "d1");
    store().tables().publish(lease, h, "g1", Map.of("m", "u"));
    assertThatThrownBy(() -> store().membership(h).register("m1", MemberMeta.of(1, 1), LONG_TTL)).isInstanceOf(IllegalStateException.class);
    assertThat(store().membership(h).members()).isEmpty();
    assertThat(store().seedKeys().hash(h)).isEqualTo(Map.of("m", "u"));
  }

  @Test
  void membershipArgumentsAreChecked() {
    String pool = key("services");
    assertThatThrownBy(() -> store().membership(pool).register("m1", MemberMeta.of(1, 1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().membership(pool).register("", MemberMeta.of(1, 1), LONG_TTL)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().membership(pool).register("m1", MemberMeta.of(-1, 1), LONG_TTL))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().membership(pool).register("m1", MemberMeta.of(1, -1), LONG_TTL))
        .isInstanceOf(IllegalArgumentException.class);
    long s = store().membership(pool).register("m1", MemberMeta.of(0, 0), LONG_TTL);
    assertThatThrownBy(() -> store().membership(pool).renew("m1", s, Duration.ofNanos(10)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().membership(pool).members().get("m1").liveAt(store().clock().timeMillis())).isTrue();
    assertThat(store().seedKeys().list(pool)).containsExactly("m1");
  }

  // ---------------------------------------------------------------- ownership

  @Test
  void claimIsExclusiveUnderConcurrency() throws Exception {
    String pool = key("services");
    int n = 16;
    long[] sessions = new long[n];
    for (int i = 0; i < n; i++) {
      sessions[i] = (i % 2 == 0 ? store() : peer()).membership(pool).register("m" + i, MemberMeta.of(1, 10), LONG_TTL);
    }
    List<OptionalLong> first =
        race(n, i -> () -> (i % 2 == 0 ? store() : peer()).ownership(pool).claim("u", "m" + i, sessions[i]));
    int w = onlyWinner(first);
    long t1 = first.get(w).getAsLong();
    assertThat(store().ownership(pool).owners()).isEqualTo(Map.of("u", new UnitOwner("u", "m" + w, sessions[w], t1)));
    assertThat(peer().ownership(pool).validToken("u", "m" + w, sessions[w], t1)).isTrue();
    assertThat(store().ownership(pool).claim("u", "m" + w, sessions[w])).as("repeated claim").hasValue(t1);

    // the owner expires: the others race again, and again exactly one wins, with a larger token
    expireMember(pool, "m" + w, sessions[w]);
    List<OptionalLong> second = race(n, i -> () -> i == w ? OptionalLong.empty()
        : (i % 2 == 0 ? store() : peer()).ownership(pool).claim("u", "m" + i, sessions[i]));
    int w2 = onlyWinner(second);
    long t2 = second.get(w2).getAsLong();
    assertThat(t2).isGreaterThan(t1);
    assertThat(store().ownership(pool).owners()).isEqualTo(Map.of("u", new UnitOwner("u", "m" + w2, sessions[w2], t2)));
    assertThat(store().ownership(pool).validToken("u", "m" + w, sessions[w], t1)).isFalse();
    assertThat(store().ownership(pool).validToken("u", "m" + w2, sessions[w2], t2)).isTrue();
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
    long s1 = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
    long s2 = peer().membership(pool).register("m2", MemberMeta.of(1, 10), LONG_TTL);
    long t1 = store().ownership(pool).claim("u", "m1", s1).orElseThrow();
    assertThat(store().ownership(pool).claim("u", "m1", s1)).as("repeated claim keeps the token").hasValue(t1);
    assertThat(peer().ownership(pool).claim("u", "m2", s2)).isEmpty();
    assertThat(peer().ownership(pool).validToken("u", "m1", s1, t1)).isTrue();
    assertThat(peer().ownership(pool).validToken("u", "m1", s1, t1 - 1)).isFalse();
    assertThat(peer().ownership(pool).validToken("other", "m1", s1, t1)).isFalse();
    assertThat(peer().ownership(pool).validToken("u", "m2", s1, t1)).as("another member").isFalse();
    assertThat(peer().ownership(pool).validToken("u", "m1", s1 + 1, t1)).as("another session").isFalse();

    expireMember(pool, "m1", s1);
    assertThat(store().ownership(pool).validToken("u", "m1", s1, t1)).as("owner expired").isFalse();
    assertThat(store().ownership(pool).owners()).as("still recorded, but claimable")
        .isEqualTo(Map.of("u", new UnitOwner("u", "m1", s1, t1)));
    long t2 = peer().ownership(pool).claim("u", "m2", s2).orElseThrow();
    assertThat(t2).isGreaterThan(t1);
    assertThat(store().ownership(pool).validToken("u", "m2", s2, t2)).isTrue();
    assertThat(store().ownership(pool).validToken("u", "m1", s1, t1)).isFalse();
    assertThat(store().ownership(pool).release("u", "m1", t1)).as("stale release").isFalse();
    assertThat(store().ownership(pool).claim("u", "m1", s1)).isEmpty();
    assertThat(store().ownership(pool).owners()).isEqualTo(Map.of("u", new UnitOwner("u", "m2", s2, t2)));

    assertThat(store().ownership(pool).claim("u2", "ghost", s2)).as("not registered").isEmpty();
    assertThat(store().ownership(pool).claim("u2", "m2", s2 + 1_000_000)).as("not its session").isEmpty();
    assertThat(store().ownership(pool).owners()).containsOnlyKeys("u");
  }

  @Test
  void releaseUnitIsCompareAndDeleteAndNotifies() throws Exception {
    String pool = key("services");
    BlockingQueue<String> released = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.releases(pool), released::add)) {
      long s1 = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
      long s2 = store().membership(pool).register("m2", MemberMeta.of(1, 10), LONG_TTL);
      long t1 = store().ownership(pool).claim("u1", "m1", s1).orElseThrow();
      long ta = store().ownership(pool).claim("u2", "m1", s1).orElseThrow();

      assertThat(store().ownership(pool).release("u1", "m1", ta)).as("another unit's token").isFalse();
      assertThat(store().ownership(pool).release("u1", "m2", t1)).as("another member").isFalse();
      assertThat(store().ownership(pool).release("nothing", "m1", t1)).isFalse();
      assertThat(store().ownership(pool).validToken("u1", "m1", s1, t1)).isTrue();

      assertThat(peer().ownership(pool).release("u1", "m1", t1)).isTrue();
      assertThat(released.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("u1");
      assertThat(store().ownership(pool).release("u1", "m1", t1)).as("already released").isFalse();
      assertThat(store().ownership(pool).validToken("u1", "m1", s1, t1)).isFalse();
      assertThat(store().ownership(pool).owners()).isEqualTo(Map.of("u2", new UnitOwner("u2", "m1", s1, ta)));

      long t3 = store().ownership(pool).claim("u1", "m2", s2).orElseThrow();
      assertThat(t3).isGreaterThan(ta);
      assertThat(store().ownership(pool).release("u1", "m1", t1)).as("must not delete the new owner's claim").isFalse();
      assertThat(store().ownership(pool).owners().get("u1")).isEqualTo(new UnitOwner("u1", "m2", s2, t3));

      assertThat(store().ownership(pool).release("u2", "m1", ta)).isTrue();
      assertThat(released.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
          .as("refused releases announced nothing").isEqualTo("u2");
      assertThat(store().ownership(pool).owners()).containsOnlyKeys("u1");
    }
  }

  @Test
  void releaseAllIsCompareAndDeleteForEachUnitAndAnnouncesEachRelease() throws Exception {
    String pool = key("services");
    BlockingQueue<String> released = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.releases(pool), released::add)) {
      long s1 = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
      long s2 = store().membership(pool).register("m2", MemberMeta.of(1, 10), LONG_TTL);
      Map<String, Long> t = store().ownership(pool).claimAll(List.of("u1", "u2", "u3", "u4"), "m1", s1);
      long other = store().ownership(pool).claim("v", "m2", s2).orElseThrow();
      assertThat(store().ownership(pool).releaseAll(Map.of(), "m1")).isEmpty();

      Map<String, Long> ask = new LinkedHashMap<>();
      ask.put("u3", t.get("u3"));
      ask.put("u1", t.get("u1"));
      ask.put("u2", t.get("u1")); // another unit's token
      ask.put("v", other); // another member's unit
      ask.put("nothing", t.get("u4"));
      assertThat(peer().ownership(pool).releaseAll(ask, "m1")).as("in the order asked").containsExactly("u3", "u1");
      assertThat(List.of(poll(released), poll(released))).containsExactlyInAnyOrder("u1", "u3");
      assertThat(store().ownership(pool).owners()).containsOnlyKeys("u2", "u4", "v");
      assertThat(store().ownership(pool).validToken("u2", "m1", s1, t.get("u2"))).isTrue();
      assertThat(store().ownership(pool).releaseAll(Map.of("u1", t.get("u1")), "m1")).as("already released").isEmpty();

      long again = store().ownership(pool).claim("u1", "m2", s2).orElseThrow();
      assertThat(again).isGreaterThan(t.get("u1"));
      assertThat(store().ownership(pool).releaseAll(Map.of("u1", t.get("u1"), "u2", t.get("u2")), "m1"))
          .as("must not delete the new owner's claim").containsExactly("u2");
      assertThat(poll(released)).as("refused releases announced nothing").isEqualTo("u2");
      assertThat(store().ownership(pool).owners().get("u1")).isEqualTo(new UnitOwner("u1", "m2", s2, again));
    }
  }

  @Test
  void aHandoffReleasesAndGrantsToTheNamedMembersLiveSessionInOneStep() throws Exception {
    String pool = key("services");
    BlockingQueue<String> released = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.releases(pool), released::add)) {
      long s1 = store().membership(pool).register("m1", MemberMeta.of(1, 10), LONG_TTL);
      long s2 = store().membership(pool).register("m|2", MemberMeta.of(1, 10), LONG_TTL);
      long s3 = store().membership(pool).register("m3", MemberMeta.of(1, 10), LONG_TTL);
      long s4 = store().membership(pool).register("m4", MemberMeta.of(1, 10), LONG_TTL);
      store().membership(pool).deregister("m3", s3);
      assertThat(store().membership(pool).renew("m4", s4, Duration.ofMillis(1))).isTrue();
      long until = store().membership(pool).members().get("m4").leaseUntilMillis();
      waiting().until(() -> store().clock().timeMillis() > until);
      Map<String, Long> t = store().ownership(pool).claimAll(List.of("u1", "u|2", "u3", "u4", "u5", "u6"), "m1", s1);
      long highest = t.values().stream().mapToLong(Long::longValue).max().orElseThrow();
      assertThat(store().ownership(pool).handOffAll(List.of(), "m1")).isEmpty();

      List<Handoff> ask = List.of(
          new Handoff("u1", t.get("u1"), "m|2"), // granted
          Handoff.release("u|2", t.get("u|2")), // plain release
          new Handoff("u3", t.get("u1"), "m|2"), // another unit's token: not released, not granted
          new Handoff("u4", t.get("u4"), "m3"), // deregistered: released only
          new Handoff("u5", t.get("u5"), "m4"), // lease over: released only
          new Handoff("u6", t.get("u6"), "m1")); // to itself: released only
      assertThat(peer().ownership(pool).handOffAll(ask, "m1")).as("in the order asked")
          .containsExactly("u1", "u|2", "u4", "u5", "u6");
      Map<String, UnitOwner> owners = store().ownership(pool).owners();
      assertThat(owners).containsOnlyKeys("u1", "u3");
      UnitOwner granted = owners.get("u1");
      assertThat(granted.member()).isEqualTo("m|2");
      assertThat(granted.session()).isEqualTo(s2);
      assertThat(granted.token()).as("a new token, above every token before").isGreaterThan(highest);
      assertThat(owners.get("u3")).isEqualTo(new UnitOwner("u3", "m1", s1, t.get("u3")));

      List<String> notes = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        notes.add(poll(released));
      }
      List<String> grants = notes.stream().filter(Handoff::isGrant).toList();
      assertThat(grants).hasSize(1);
      assertThat(Handoff.grantTo(grants.get(0), "m|2", s2)).contains(granted);
      assertThat(Handoff.grantTo(grants.get(0), "m|2", s1)).as("another session").isEmpty();
      assertThat(Handoff.grantTo(grants.get(0), "m1", s2)).as("another member").isEmpty();
      assertThat(notes.stream().filter(n -> !Handoff.isGrant(n)))
          .containsExactlyInAnyOrder("u|2", "u4", "u5", "u6");

      assertThat(store().ownership(pool).validToken("u1", "m|2", s2, granted.token())).isTrue();
      assertThat(store().ownership(pool).claim("u1", "m|2", s2)).as("a claim returns the token granted")
          .hasValue(granted.token());
      assertThat(store().ownership(pool).claim("u1", "m1", s1)).as("the grant is a live owner").isEmpty();
      assertThat(store().ownership(pool).handOffAll(List.of(new Handoff("u1", t.get("u1"), "m1")), "m1"))
          .as("the old token releases nothing").isEmpty();
      long next = store().ownership(pool).claim("u7", "m1", s1).orElseThrow();
      assertThat(next).as("tokens keep growing after a grant").isGreaterThan(granted.token());
      assertThat(released.poll(100, TimeUnit.MILLISECONDS)).as("refused handoffs announce nothing").isNull();
    }
  }

  // ---------------------------------------------------------------- route weights

  @Test
  void routeWeightsAreReplacedWholeAndClearedByAnEmptySet() {
    String pool = key("svc");
    assertThat(store().routeWeights(pool).read()).as("never set").isEmpty();
    assertThat(store().routeWeights(pool).pool()).isEqualTo(pool);
    long r1 = store().routeWeights(pool).set(Map.of("v2", 10, "v1", 90));
    assertThat(peer().routeWeights(pool).read()).containsExactly(Map.entry("v1", 90), Map.entry("v2", 10));
    long r2 = peer().routeWeights(pool).set(Map.of("v3", 0, "v1", RouteWeights.MAX_WEIGHT));
    assertThat(r2).isGreaterThan(r1);
    assertThat(store().routeWeights(pool).read()).as("replaced whole")
        .isEqualTo(Map.of("v1", RouteWeights.MAX_WEIGHT, "v3", 0));
    assertThat(store().routeWeights(key("other")).read()).as("another pool").isEmpty();
    long r3 = store().routeWeights(pool).set(Map.of());
    assertThat(r3).isGreaterThan(r2);
    assertThat(peer().routeWeights(pool).read()).as("cleared").isEmpty();
    assertThat(store().routeWeights(pool).set(Map.of("v1", 1))).isGreaterThan(r3);
    assertThat(store().routeWeights(pool).read()).isEqualTo(Map.of("v1", 1));
  }

  @Test
  void routeWeightsRevisionIsThatOfTheLastSet() {
    String pool = key("rev");
    assertThat(store().routeWeights(pool).revision()).as("never set").isZero();
    long r1 = store().routeWeights(pool).set(Map.of("v1", 1));
    assertThat(peer().routeWeights(pool).revision()).isEqualTo(r1);
    long r2 = peer().routeWeights(pool).set(Map.of());
    assertThat(store().routeWeights(pool).revision()).isEqualTo(r2);
    assertThat(store().routeWeights(key("other")).revision()).as("another pool").isZero();
  }

  // ---------------------------------------------------------------- job queues as a whole

  /** The queues of this test among every queue of the store (other tests' queues are there too). */
  private List<String> myQueues() {
    return peer().jobQueues().names().stream().filter(n -> n.startsWith(prefix())).toList();
  }

  @Test
  void jobQueuesNamesTheQueuesThatHoldAJobOrHaveARateLimit() {
    String withJobs = key("jobs:b");
    String limited = key("limited:a");
    String nothing = key("nothing");
    assertThat(myQueues()).isEmpty();
    store().jobQueue(nothing).stats(1); // a read leaves no trace
    store().jobQueue(withJobs).enqueue(io.allot.store.jobs.NewJob.of("k1"));
    store().jobQueue(limited).limitRate(5);
    assertThat(myQueues()).containsExactly(withJobs, limited);
    List<String> all = store().jobQueues().names();
    assertThat(all).isSorted().doesNotHaveDuplicates();
    store().jobQueue(limited).limitRate(0);
    assertThat(store().jobQueue(withJobs).ignore(List.of("k1"))).isEqualTo(1);
    assertThat(store().jobQueue(withJobs).purge(Duration.ZERO, 10)).isEqualTo(1);
    assertThat(myQueues()).as("purged and unlimited: gone").isEmpty();
  }

  @Test
  void badRouteWeightsAreRefusedAndChangeNothing() {
    String pool = key("svc");
    store().routeWeights(pool).set(Map.of("v1", 5));
    Map<String, Integer> nullWeight = new java.util.HashMap<>();
    nullWeight.put("v2", null);
    for (Map<String, Integer> bad : List.of(Map.of("v1", 1, "v2", -1), Map.of("v2", RouteWeights.MAX_WEIGHT + 1),
        Map.of("", 1), nullWeight)) {
      assertThatThrownBy(() -> store().routeWeights(pool).set(bad)).as("%s", bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("route weights");
    }
    assertThat(peer().routeWeights(pool).read()).isEqualTo(Map.of("v1", 5));
    assertThatThrownBy(() -> store().routeWeights("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRouteWeightsSetIsAnnouncedWithItsRevision() throws Exception {
    String pool = key("svc");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.routeWeights(pool), got::add)) {
      long r1 = store().routeWeights(pool).set(Map.of("v1", 50, "v2", 50));
      assertThat(poll(got)).isEqualTo(Long.toString(r1));
      long r2 = store().routeWeights(pool).set(Map.of());
      assertThat(poll(got)).isEqualTo(Long.toString(r2));
    }
  }

  /** Concurrent sets: each is applied whole, one after the other; the last one read is one of them, never a mix. */
  @Test
  void concurrentRouteWeightsSetsNeverMix() throws Exception {
    String pool = key("svc");
    List<Map<String, Integer>> sets = List.of(Map.of("a", 1, "b", 2), Map.of("c", 3), Map.of("a", 4, "d", 5), Map.of());
    List<Long> revisions = race(8, i -> () -> (i % 2 == 0 ? store() : peer()).routeWeights(pool).set(sets.get(i % 4)));
    assertThat(revisions).doesNotHaveDuplicates();
    assertThat(sets).contains(store().routeWeights(pool).read());
  }

  private static String poll(BlockingQueue<String> q) throws InterruptedException {
    return q.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void poolsAreIndependent() {
    String a = key("pool-a");
    String b = key("pool-b");
    long sa = store().membership(a).register("m1", MemberMeta.of(1, 1), LONG_TTL);
    long sb = store().membership(b).register("m1", MemberMeta.of(2, 2), LONG_TTL);
    long ta = store().ownership(a).claim("u", "m1", sa).orElseThrow();
    long tb = store().ownership(b).claim("u", "m1", sb).orElseThrow();
    store().membership(a).deregister("m1", sa);
    assertThat(store().seedKeys().list(a)).isEmpty();
    assertThat(store().seedKeys().list(b)).containsExactly("m1");
    assertThat(store().ownership(a).validToken("u", "m1", sa, ta)).isFalse();
    assertThat(store().ownership(b).validToken("u", "m1", sb, tb)).isTrue();
    assertThat(store().membership(b).members().get("m1").affinity()).isEqualTo(2);
  }

  @Test
  void unicodeAndSeparatorsInMemberIdsAndUnits() throws Exception {
    String pool = key("サービス|😀");
    String member = "ñandú|😀:8080";
    String unit = "ключ|🔑|42";
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.releases(pool), got::add)) {
      long s = store().membership(pool).register(member, MemberMeta.of(1, 1), LONG_TTL);
      long t = store().ownership(pool).claim(unit, member, s).orElseThrow();
      assertThat(peer().membership(pool).members()).containsOnlyKeys(member);
      assertThat(peer().ownership(pool).owners()).isEqualTo(Map.of(unit, new UnitOwner(unit, member, s, t)));
      assertThat(peer().ownership(pool).validToken(unit, member, s, t)).isTrue();
      assertThat(peer().seedKeys().list(pool)).containsExactly(member);
      assertThat(store().ownership(pool).release(unit, member, t)).isTrue();
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(unit);
      store().membership(pool).deregister(member, s);
      assertThat(store().seedKeys().list(pool)).isEmpty();
    }
  }

  // ---------------------------------------------------------------- notification

  @Test
  void subscriptionReceivesThePublishNotification() throws Exception {
    String h = key("table");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.table(h), got::add)) {
      Lease lease = tableLease(store(), h, "g1", "d1");
      store().tables().publish(lease, h, "g1", Map.of("m1", "u1"));
      store().tables().publish(lease, h, "g1", Map.of("m1", "u2"));
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("1");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("2");
    }
  }

  @Test
  void seedListWritesAreAnnouncedOnTheKeysTopic() {
    String k = key("units");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.key(k), got::add)) {
      store().seedKeys().addToList(k, "a");
      waiting().until(() -> !got.isEmpty());
      got.clear();
      store().seedKeys().replaceList(k, List.of("b", "c"));
      waiting().until(() -> !got.isEmpty());
      got.clear();
      store().seedKeys().removeFromList(k, "b");
      waiting().until(() -> !got.isEmpty());
      got.clear();
      store().notifications().publish(Topic.key(k), "changed");
      waiting().until(() -> got.contains("changed"));
    }
  }

  @Test
  void notifyReachesEverySubscriberUntilItCloses() throws Exception {
    String channel = key("chan");
    BlockingQueue<String> a = new LinkedBlockingQueue<>();
    BlockingQueue<String> b = new LinkedBlockingQueue<>();
    Subscription subA = store().notifications().subscribe(Topic.named(channel), a::add);
    try (Subscription subB = peer().notifications().subscribe(Topic.named(channel), b::add)) {
      store().notifications().publish(Topic.named(channel), "one");
      assertThat(a.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("one");
      assertThat(b.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("one");

      subA.close();
      subA.close(); // idempotent
      peer().notifications().publish(Topic.named(channel), "two");
      // b is the barrier: once b got "two", a would have got it too if still subscribed (same channel, in order)
      assertThat(b.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("two");
      assertThat(a.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }
    store().notifications().publish(Topic.named(key("nobody-listens")), "x");
  }

  @Test
  void aFailingListenerDoesNotStopDelivery() throws Exception {
    String channel = key("chan");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription bad = store().notifications().subscribe(Topic.named(channel), m -> {
          throw new IllegalStateException("listener bug");
        });
        Subscription good = store().notifications().subscribe(Topic.named(channel), got::add)) {
      store().notifications().publish(Topic.named(channel), "1");
      store().notifications().publish(Topic.named(channel), "2");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("1");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("2");
    }
  }

  // ---------------------------------------------------------------- unicode

  @Test
  void unicodeKeysAndValuesRoundTrip() throws Exception {
    String list = key("サービス-列表-😀");
    assertThat(store().seedKeys().addToList(list, "ñandú:8080")).isTrue();
    assertThat(store().seedKeys().addToList(list, "Ωμέγα-😀")).isTrue();
    assertThat(store().seedKeys().addToList(list, "ñandú:8080")).isFalse();
    assertThat(peer().seedKeys().list(list)).containsExactly("Ωμέγα-😀", "ñandú:8080");
    assertThat(store().seedKeys().removeFromList(list, "Ωμέγα-😀")).isTrue();

    String h = key("分配-table-ü");
    String pool = "grüppe-组";
    Lease lease = store().leadership().tryAcquire(Tables.leaseName(h, pool), "distributör-😀", Duration.ofSeconds(30))
        .orElseThrow();
    assertThat(store().leadership().current(Tables.leaseName(h, pool))).contains(lease);
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = store().notifications().subscribe(Topic.table(h), got::add)) {
      store().tables().publish(lease, h, pool, Map.of("мир:1", "ключ-1,🔑-2", "é", ""));
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("1");
    }
    assertThat(peer().seedKeys().hash(h)).isEqualTo(Map.of("мир:1", "ключ-1,🔑-2", "é", ""));
    assertThat(store().leadership().renew(lease, Duration.ofSeconds(30))).isTrue();
    store().leadership().release(lease);
    assertThat(store().leadership().current(lease.name())).isEmpty();

    String channel = key("канал-📣");
    BlockingQueue<String> msgs = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer().notifications().subscribe(Topic.named(channel), msgs::add)) {
      store().notifications().publish(Topic.named(channel), "héllo 世界 🌍");
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
