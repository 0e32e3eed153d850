package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Subscription;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.store.UnitOwner;
import io.allot.testkit.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract against the Redis of {@link TestServers#redisUri()}, every test under a random key prefix (see
 * {@link RedisContractTest}), and what is particular to standalone Redis: the raw key layout, records written by
 * others or by earlier releases.
 */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
class RedisStoreTest extends RedisContractTest {

  @Override
  String uri() {
    return TestServers.redisUri();
  }

  @Test
  void layoutIsSeedCompatibleAndCompanionsAreHashTagged() {
    String services = key("sys-services");
    clients.raw.lpush(services, "10.0.0.1:8080"); // a Go service registering itself
    assertThat(clients.store.seedKeys().list(services)).containsExactly("10.0.0.1:8080");
    assertThat(clients.store.seedKeys().addToList(services, "10.0.0.2:8080")).isTrue();
    assertThat(clients.raw.lrange(services, 0, -1)).containsExactly("10.0.0.2:8080", "10.0.0.1:8080");

    String table = key("sys-matching-table");
    Lease lease = clients.store.leadership().tryAcquire(Tables.leaseName(table, "g1"), "d1", Duration.ofSeconds(30)).orElseThrow();
    clients.store.tables().publish(lease, table, "g1", Map.of("10.0.0.1:8080", "u1,u2"));
    assertThat(clients.raw.type(table)).isEqualTo("hash");
    assertThat(clients.raw.hgetall(table)).isEqualTo(Map.of("10.0.0.1:8080", "u1,u2"));
    assertThat(clients.raw.get("{" + table + "}:allot:epoch")).isEqualTo("1");
    assertThat(clients.raw.smembers("{" + table + "}:allot:fields:g1")).containsExactly("10.0.0.1:8080");
    assertThat(clients.raw.hgetall("{" + table + "}:allot:owners")).isEqualTo(Map.of("10.0.0.1:8080", "g1"));
    assertThat(clients.raw.get("{" + table + "}:allot:lease:g1")).isEqualTo(lease.token() + ":d1");
    assertThat(clients.raw.get("{" + table + "}:allot:token:g1")).isEqualTo(Long.toString(lease.token()));
    assertThat(clients.raw.pttl("{" + table + "}:allot:lease:g1")).isBetween(1L, 30_000L);
    assertThat(clients.raw.pttl("{" + table + "}:allot:token:g1")).as("tokens never expire").isEqualTo(-1L);
  }

  /**
   * Live routing weights: a hash and a revision in the pool's slot; weights a release before the role wrote (the
   * table {@code allot-route:<pool>}, published under the name "weights") stay in force until the pool's first set
   * through the role, which then alone counts, a clear included.
   */
  @Test
  void routeWeightsLiveInThePoolsSlotAndEarlierWeightsStayInForceUntilTheFirstSet() {
    String pool = key("svc");
    String legacy = "allot-route:" + pool;
    Lease lease = clients.store.leadership().tryAcquire(Tables.leaseName(legacy, "weights"), "old", Duration.ofSeconds(30))
        .orElseThrow();
    clients.store.tables().publish(lease, legacy, "weights", Map.of("v1", "90", "v2", "10", "note", "not a weight"));
    assertThat(clients.store.routeWeights(pool).read()).isEqualTo(Map.of("v1", 90, "v2", 10));

    long revision = clients.store.routeWeights(pool).set(Map.of("v3", 7));
    assertThat(clients.raw.hgetall("{" + pool + "}:allot:weights")).isEqualTo(Map.of("v3", "7"));
    assertThat(clients.raw.get("{" + pool + "}:allot:weights:revision")).isEqualTo(Long.toString(revision));
    assertThat(clients.store.routeWeights(pool).read()).isEqualTo(Map.of("v3", 7));
    clients.store.routeWeights(pool).set(Map.of());
    assertThat(clients.raw.exists("{" + pool + "}:allot:weights")).isZero();
    assertThat(clients.store.routeWeights(pool).read()).as("cleared: the earlier table no longer counts").isEmpty();
    assertThat(clients.raw.hgetall(legacy)).as("left in place").containsKeys("v1", "v2");
  }

  /**
   * A publication writes only what changed since this client's previous one of the pool (same lease): a field
   * written meanwhile by a client that is not allot keeps that value as long as its own entry does not change, which
   * shows it was not rewritten; the changed and the dropped fields are. The seed layout stays as it was, and the
   * pool's mark is the epoch of its last publication. A new lease publishes in full again.
   */
  @Test
  void aPublicationWritesOnlyTheFieldsThatChanged() {
    String table = key("sys-matching-table");
    String name = Tables.leaseName(table, "g1");
    Lease lease = clients.store.leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    clients.store.tables().publish(lease, table, "g1", Map.of("m1", "u1", "m2", "u2", "m3", "u3"));
    clients.raw.hset(table, "m1", "tampered"); // not allot: the clients.store does not know
    assertThat(clients.store.tables().publish(lease, table, "g1", Map.of("m1", "u1", "m2", "u2,u4"))).isEqualTo(2);
    assertThat(clients.raw.hgetall(table)).isEqualTo(Map.of("m1", "tampered", "m2", "u2,u4"));
    assertThat(clients.raw.smembers("{" + table + "}:allot:fields:g1")).containsExactlyInAnyOrder("m1", "m2");
    assertThat(clients.raw.hgetall("{" + table + "}:allot:owners")).isEqualTo(Map.of("m1", "g1", "m2", "g1"));
    assertThat(clients.raw.hgetall("{" + table + "}:allot:marks")).isEqualTo(Map.of("g1", "2"));
    clients.store.leadership().release(lease);
    Lease next = clients.store.leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    clients.store.tables().publish(next, table, "g1", Map.of("m1", "u1", "m2", "u2,u4"));
    assertThat(clients.raw.hgetall(table)).isEqualTo(Map.of("m1", "u1", "m2", "u2,u4"));
  }

  @Test
  void firstTokenIsSeededFromRedisTimeInMicroseconds() {
    long before = clients.store.clock().timeMillis() * 1000;
    Lease lease = clients.store.leadership().tryAcquire(key("leader"), "d1", Duration.ofSeconds(5)).orElseThrow();
    assertThat(lease.token()).isGreaterThan(before).isLessThan(before + 60_000_000L);
  }

  @Test
  void tokensKeepIncreasingAfterTheTokenKeyIsLost() {
    String name = key("leader");
    Lease first = clients.store.leadership().tryAcquire(name, "d1", Duration.ofSeconds(5)).orElseThrow();
    clients.store.leadership().release(first);
    clients.raw.del(RedisKeys.token(name)); // what a restart without persistence does
    Lease second = clients.store.leadership().tryAcquire(name, "d1", Duration.ofSeconds(5)).orElseThrow();
    assertThat(second.token()).isGreaterThan(first.token());
  }

  @Test
  void membershipLayoutIsHashTaggedWithThePool() {
    String pool = key("sys-services");
    clients.raw.lpush(pool, "10.0.0.1:8080"); // a Go service registering itself
    long before = clients.store.clock().timeMillis();
    long session = clients.store.membership(pool).register("10.0.0.2:8080", MemberMeta.of(3, 7), Duration.ofSeconds(30));
    long token = clients.store.ownership(pool).claim("unit-1", "10.0.0.2:8080", session).orElseThrow();
    assertThat(clients.raw.lrange(pool, 0, -1)).containsExactly("10.0.0.2:8080", "10.0.0.1:8080");

    String value = clients.raw.hget("{" + pool + "}:allot:members", "10.0.0.2:8080");
    assertThat(value).startsWith("3|7|" + session + "|");
    long until = Long.parseLong(value.substring(value.lastIndexOf('|') + 1));
    assertThat(until).isBetween(before + 30_000, clients.store.clock().timeMillis() + 30_000);
    assertThat(clients.raw.hgetall("{" + pool + "}:allot:ownership"))
        .isEqualTo(Map.of("unit-1", "10.0.0.2:8080|" + session + "|" + token));
    assertThat(clients.raw.get("{" + pool + "}:allot:counter")).isEqualTo(Long.toString(token));
    assertThat(session).as("seeded from TIME in microseconds").isBetween(before * 1000, before * 1000 + 60_000_000L);
    for (String k : List.of("members", "ownership", "counter")) {
      assertThat(clients.raw.pttl("{" + pool + "}:allot:" + k)).as("%s never expires", k).isEqualTo(-1L);
    }
  }

  @Test
  void sessionsAndTokensKeepIncreasingAfterTheCounterIsLost() {
    String pool = key("services");
    long s1 = clients.store.membership(pool).register("m1", MemberMeta.of(1, 1), Duration.ofSeconds(30));
    long t1 = clients.store.ownership(pool).claim("u", "m1", s1).orElseThrow();
    clients.raw.del(RedisKeys.counter(pool)); // what a restart without persistence does (with the rest kept, worst case)
    long s2 = clients.store.membership(pool).register("m2", MemberMeta.of(1, 1), Duration.ofSeconds(30));
    assertThat(s2).isGreaterThan(t1);
    assertThat(clients.store.membership(pool).renew("m1", s1, Duration.ofSeconds(30))).isTrue();
  }

  @Test
  void aCounterRolledBackStillIssuesTokensAboveTheStoreTimeInMicroseconds() {
    String pool = key("services");
    long s = clients.store.membership(pool).register("m1", MemberMeta.of(1, 1), Duration.ofSeconds(30));
    String lease = key("leader");
    clients.store.leadership().tryAcquire(lease, "d1", Duration.ofMillis(1));
    clients.raw.set(RedisKeys.counter(pool), "7"); // what an AOF rollback or a restore of an old snapshot does
    clients.raw.set(RedisKeys.token(lease), "7");
    long now = clients.store.clock().timeMillis() * 1000;
    long token = clients.store.ownership(pool).claim("u", "m1", s).orElseThrow();
    assertThat(token).isGreaterThan(now).isGreaterThan(s);
    long leaseToken = waiting().until(() -> clients.store.leadership().tryAcquire(lease, "d2", Duration.ofSeconds(5)),
        java.util.Optional::isPresent).orElseThrow().token();
    assertThat(leaseToken).isGreaterThan(now);
  }

  @Test
  void theGuardRecordNamesTheRunOfTheNodeAndWhenClaimsMayStart() {
    String pool = key("services");
    long before = clients.store.clock().timeMillis();
    long s = clients.store.membership(pool).register("m1", MemberMeta.of(1, 1), Duration.ofSeconds(30));
    Map<String, String> guard = clients.raw.hgetall(RedisKeys.guard(pool));
    assertThat(guard.get("incarnation")).isEqualTo(RedisDurability.parseInfo(clients.raw.info("server")).get("run_id"));
    assertThat(Long.parseLong(guard.get("not_before"))).as("a new pool on a long-running server: no wait")
        .isBetween(before, clients.store.clock().timeMillis());
    assertThat(clients.store.ownership(pool).claim("u", "m1", s)).isPresent();
    assertThat(clients.raw.pttl(RedisKeys.guard(pool))).as("never expires").isEqualTo(-1L);
  }

  @Test
  void malformedRecordsAreIgnoredAndDoNotBlockClaims() {
    String pool = key("services");
    clients.raw.hset(RedisKeys.members(pool), "junk", "not|a|record");
    clients.raw.hset(RedisKeys.ownership(pool), "u", "garbage");
    long s = clients.store.membership(pool).register("m1", MemberMeta.of(1, 1), Duration.ofSeconds(30));
    assertThat(clients.store.membership(pool).members()).containsOnlyKeys("m1");
    assertThat(clients.store.ownership(pool).owners()).isEmpty();
    assertThat(clients.store.ownership(pool).claim("u", "junk", 1)).isEmpty();
    long t = clients.store.ownership(pool).claim("u", "m1", s).orElseThrow();
    assertThat(clients.store.ownership(pool).owners()).containsOnlyKeys("u");
    assertThat(clients.store.ownership(pool).validToken("u", "m1", s, t)).isTrue();
  }

  @Test
  void recordParsing() {
    assertThat(RedisMembership.parse("m", "1|2|3|4")).isEqualTo(new MemberRecord("m", MemberMeta.of(1, 2), 3, 4));
    assertThat(RedisMembership.parse("m", "1|2|3|4|")).isEqualTo(new MemberRecord("m", MemberMeta.of(1, 2), 3, 4));
    assertThat(RedisMembership.parse("m", "1|2|3|4|version=1.0&zone=a%7Cb"))
        .isEqualTo(new MemberRecord("m", MemberMeta.of(1, 2).with("version", "1.0").with("zone", "a|b"), 3, 4));
    assertThat(RedisMembership.parse("m", "1|2|3")).isNull();
    assertThat(RedisMembership.parse("m", "1|2|3|4|a=1|b=2")).isNull();
    assertThat(RedisMembership.parse("m", "1|2|3|4|novalue")).isNull();
    assertThat(RedisMembership.parse("m", "-1|2|3|4")).isNull();
    assertThat(RedisOwnership.parse("u", "a|b|5|6")).isEqualTo(new UnitOwner("u", "a|b", 5, 6));
    assertThat(RedisOwnership.parse("u", "|5|6")).isEqualTo(new UnitOwner("u", "", 5, 6));
    assertThat(RedisOwnership.parse("u", "5|6")).isNull();
    assertThat(RedisOwnership.parse("u", "a|x|6")).isNull();
  }

  @Test
  void memberAttributesAreTheFifthPartOfTheRecordAndKeptByRenew() {
    String pool = key("services");
    MemberMeta meta = MemberMeta.of(3, 7).with(MemberMeta.VERSION, "1.2.3").with("label.team", "a|b c");
    long s = clients.store.membership(pool).register("m1", meta, Duration.ofSeconds(30));
    String value = clients.raw.hget(RedisKeys.members(pool), "m1");
    assertThat(value).startsWith("3|7|" + s + "|").endsWith("|label.team=a%7Cb+c&version=1.2.3");
    assertThat(value.split("\\|", -1)).hasSize(5);

    assertThat(clients.store.membership(pool).renew("m1", s, Duration.ofSeconds(60))).isTrue();
    assertThat(clients.raw.hget(RedisKeys.members(pool), "m1")).endsWith("|label.team=a%7Cb+c&version=1.2.3");
    assertThat(clients.peer.membership(pool).members().get("m1").meta()).isEqualTo(meta);

    assertThat(clients.store.membership(pool).update("m1", s, MemberMeta.of(4, 8))).isTrue();
    assertThat(clients.raw.hget(RedisKeys.members(pool), "m1")).as("no attributes: the 4-part form of earlier releases")
        .matches("4\\|8\\|" + s + "\\|\\d+");
  }

  @Test
  void recordsWrittenByThePreviousReleaseStillRead() {
    String pool = key("services");
    long now = clients.store.clock().timeMillis();
    clients.raw.hset(RedisKeys.members(pool), "old:1", "2|5|42|" + (now + 30_000)); // affinity|capacity|session|until
    assertThat(clients.store.membership(pool).members().get("old:1"))
        .isEqualTo(new MemberRecord("old:1", MemberMeta.of(2, 5), 42, now + 30_000));
    long token = clients.store.ownership(pool).claim("u", "old:1", 42).orElseThrow();
    assertThat(clients.store.ownership(pool).validToken("u", "old:1", 42, token)).isTrue();
    assertThat(clients.store.membership(pool).renew("old:1", 42, Duration.ofSeconds(30))).isTrue();
    assertThat(clients.raw.hget(RedisKeys.members(pool), "old:1")).matches("2\\|5\\|42\\|\\d+");
    assertThat(clients.store.membership(pool).update("old:1", 42, MemberMeta.of(2, 5).with(MemberMeta.ZONE, "z1"))).isTrue();
    assertThat(clients.store.membership(pool).members().get("old:1").meta().zone()).isEqualTo("z1");
  }

  @Test
  void seedListWritesPublishOnTheChangesChannelOfEarlierReleases() throws Exception {
    String k = key("units");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = clients.peer.notifications().subscribe(Topic.named("allot:changes:" + k), got::add)) {
      clients.store.seedKeys().addToList(k, "a");
      clients.store.seedKeys().addToList(k, "a"); // not added: not announced
      clients.store.seedKeys().replaceList(k, List.of("b", "c"));
      clients.store.seedKeys().removeFromList(k, "x"); // nothing removed: not announced
      clients.store.seedKeys().removeFromList(k, "b");
      for (String expected : List.of("lpush", "replace", "lrem")) {
        assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(expected);
      }
      clients.store.notifications().publish(Topic.key(k), "barrier");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("barrier");
    }
  }

  @Test
  void describesItselfAsAUriWithoutPassword() {
    String withoutUserInfoOrParameters = uri().replaceFirst("//[^@/]*@", "//").replaceFirst("\\?.*$", "");
    assertThat(clients.store.describe()).isEqualTo(withoutUserInfoOrParameters);
  }

  @Test
  void fieldsWrittenByOthersAreLeftAlone() {
    String table = key("table");
    clients.raw.hset(table, "legacy:1", "u9"); // e.g. written by the original Go distributor
    Lease lease = clients.store.leadership().tryAcquire(Tables.leaseName(table, "g1"), "d1", Duration.ofSeconds(30)).orElseThrow();
    clients.store.tables().publish(lease, table, "g1", Map.of("m1", "u1"));
    clients.store.tables().publish(lease, table, "g1", Map.of());
    assertThat(clients.store.seedKeys().hash(table)).isEqualTo(Map.of("legacy:1", "u9"));
  }
}
