package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.StoreContractTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract against a real Redis (see {@link TestRedis}); every test under a random key prefix, removed after.
 * Two stores (two connections, as two processes would have) exercise cross-client behaviour; one plain Lettuce
 * connection checks the raw layout and cleans up.
 */
class RedisStoreTest extends StoreContractTest {
  private static RedisStore store;
  private static RedisStore peer;
  private static RedisClient rawClient;
  private static StatefulRedisConnection<String, String> rawConnection;
  private static RedisCommands<String, String> raw;

  @BeforeAll
  static void connect() {
    String address = TestRedis.address();
    store = RedisStore.connect(address);
    peer = RedisStore.connect(address);
    rawClient = RedisClient.create("redis://" + address);
    rawConnection = rawClient.connect();
    raw = rawConnection.sync();
  }

  @AfterAll
  static void disconnect() {
    if (store != null) {
      store.close();
      peer.close();
      rawConnection.close();
      rawClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @AfterEach
  void cleanUp() {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(raw, ScanArgs.Builder.matches("*" + prefix() + "*").limit(1000)).forEachRemaining(keys::add);
    if (!keys.isEmpty()) {
      raw.del(keys.toArray(new String[0]));
    }
  }

  @Override
  protected Store store() {
    return store;
  }

  @Override
  protected Store peer() {
    return peer;
  }

  @Test
  void layoutIsSeedCompatibleAndCompanionsAreHashTagged() {
    String services = key("sys-services");
    raw.lpush(services, "10.0.0.1:8080"); // a Go service registering itself
    assertThat(store.list(services)).containsExactly("10.0.0.1:8080");
    assertThat(store.addToList(services, "10.0.0.2:8080")).isTrue();
    assertThat(raw.lrange(services, 0, -1)).containsExactly("10.0.0.2:8080", "10.0.0.1:8080");

    String table = key("sys-matching-table");
    Lease lease = store.tryAcquire(Store.tableLeaseName(table, "g1"), "d1", Duration.ofSeconds(30)).orElseThrow();
    store.publish(lease, table, "g1", Map.of("10.0.0.1:8080", "u1,u2"));
    assertThat(raw.type(table)).isEqualTo("hash");
    assertThat(raw.hgetall(table)).isEqualTo(Map.of("10.0.0.1:8080", "u1,u2"));
    assertThat(raw.get("{" + table + "}:allot:epoch")).isEqualTo("1");
    assertThat(raw.smembers("{" + table + "}:allot:fields:g1")).containsExactly("10.0.0.1:8080");
    assertThat(raw.hgetall("{" + table + "}:allot:owners")).isEqualTo(Map.of("10.0.0.1:8080", "g1"));
    assertThat(raw.get("{" + table + "}:allot:lease:g1")).isEqualTo(lease.token() + ":d1");
    assertThat(raw.get("{" + table + "}:allot:token:g1")).isEqualTo(Long.toString(lease.token()));
    assertThat(raw.pttl("{" + table + "}:allot:lease:g1")).isBetween(1L, 30_000L);
    assertThat(raw.pttl("{" + table + "}:allot:token:g1")).as("tokens never expire").isEqualTo(-1L);
  }

  @Test
  void firstTokenIsSeededFromRedisTimeInMicroseconds() {
    long before = store.timeMillis() * 1000;
    Lease lease = store.tryAcquire(key("leader"), "d1", Duration.ofSeconds(5)).orElseThrow();
    assertThat(lease.token()).isGreaterThan(before).isLessThan(before + 60_000_000L);
  }

  @Test
  void tokensKeepIncreasingAfterTheTokenKeyIsLost() {
    String name = key("leader");
    Lease first = store.tryAcquire(name, "d1", Duration.ofSeconds(5)).orElseThrow();
    store.release(first);
    raw.del(RedisKeys.token(name)); // what a restart without persistence does
    Lease second = store.tryAcquire(name, "d1", Duration.ofSeconds(5)).orElseThrow();
    assertThat(second.token()).isGreaterThan(first.token());
  }

  @Test
  void membershipLayoutIsHashTaggedWithThePool() {
    String pool = key("sys-services");
    raw.lpush(pool, "10.0.0.1:8080"); // a Go service registering itself
    long before = store.timeMillis();
    long session = store.register(pool, "10.0.0.2:8080", 3, 7, Duration.ofSeconds(30));
    long token = store.claim(pool, "unit-1", "10.0.0.2:8080", session).orElseThrow();
    assertThat(raw.lrange(pool, 0, -1)).containsExactly("10.0.0.2:8080", "10.0.0.1:8080");

    String value = raw.hget("{" + pool + "}:allot:members", "10.0.0.2:8080");
    assertThat(value).startsWith("3|7|" + session + "|");
    long until = Long.parseLong(value.substring(value.lastIndexOf('|') + 1));
    assertThat(until).isBetween(before + 30_000, store.timeMillis() + 30_000);
    assertThat(raw.hgetall("{" + pool + "}:allot:ownership"))
        .isEqualTo(Map.of("unit-1", "10.0.0.2:8080|" + session + "|" + token));
    assertThat(raw.get("{" + pool + "}:allot:counter")).isEqualTo(Long.toString(token));
    assertThat(session).as("seeded from TIME in microseconds").isBetween(before * 1000, before * 1000 + 60_000_000L);
    for (String k : List.of("members", "ownership", "counter")) {
      assertThat(raw.pttl("{" + pool + "}:allot:" + k)).as("%s never expires", k).isEqualTo(-1L);
    }
  }

  @Test
  void sessionsAndTokensKeepIncreasingAfterTheCounterIsLost() {
    String pool = key("services");
    long s1 = store.register(pool, "m1", 1, 1, Duration.ofSeconds(30));
    long t1 = store.claim(pool, "u", "m1", s1).orElseThrow();
    raw.del(RedisKeys.counter(pool)); // what a restart without persistence does (with the rest kept, worst case)
    long s2 = store.register(pool, "m2", 1, 1, Duration.ofSeconds(30));
    assertThat(s2).isGreaterThan(t1);
    assertThat(store.renewMember(pool, "m1", s1, Duration.ofSeconds(30))).isTrue();
  }

  @Test
  void malformedRecordsAreIgnoredAndDoNotBlockClaims() {
    String pool = key("services");
    raw.hset(RedisKeys.members(pool), "junk", "not|a|record");
    raw.hset(RedisKeys.ownership(pool), "u", "garbage");
    long s = store.register(pool, "m1", 1, 1, Duration.ofSeconds(30));
    assertThat(store.members(pool)).containsOnlyKeys("m1");
    assertThat(store.owners(pool)).isEmpty();
    assertThat(store.claim(pool, "u", "junk", 1)).isEmpty();
    long t = store.claim(pool, "u", "m1", s).orElseThrow();
    assertThat(store.owners(pool)).containsOnlyKeys("u");
    assertThat(store.validToken(pool, "u", t)).isTrue();
  }

  @Test
  void registrationRecordParsing() {
    assertThat(RedisStore.parseMember("m", "1|2|3|4")).isEqualTo(new io.allot.store.MemberRecord("m", 1, 2, 3, 4));
    assertThat(RedisStore.parseMember("m", "1|2|3")).isNull();
    assertThat(RedisStore.parseOwnership("u", "a|b|5|6")).isEqualTo(new io.allot.store.Ownership("u", "a|b", 5, 6));
    assertThat(RedisStore.parseOwnership("u", "|5|6")).isEqualTo(new io.allot.store.Ownership("u", "", 5, 6));
    assertThat(RedisStore.parseOwnership("u", "5|6")).isNull();
    assertThat(RedisStore.parseOwnership("u", "a|x|6")).isNull();
  }

  @Test
  void fieldsWrittenByOthersAreLeftAlone() {
    String table = key("table");
    raw.hset(table, "legacy:1", "u9"); // e.g. written by the original Go distributor
    Lease lease = store.tryAcquire(Store.tableLeaseName(table, "g1"), "d1", Duration.ofSeconds(30)).orElseThrow();
    store.publish(lease, table, "g1", Map.of("m1", "u1"));
    store.publish(lease, table, "g1", Map.of());
    assertThat(store.hash(table)).isEqualTo(Map.of("legacy:1", "u9"));
  }
}
