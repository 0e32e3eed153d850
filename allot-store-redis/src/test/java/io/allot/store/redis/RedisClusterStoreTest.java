package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.Subscription;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The whole contract against the throwaway 3-master Redis Cluster of {@link TestServers#redisClusterUri()} (see
 * {@link RedisContractTest}), and what is particular to a cluster: keys in slots of every node, names whose braces
 * would break a plain hash tag, keyspace notifications from the node of each key.
 */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
class RedisClusterStoreTest extends RedisContractTest {

  @Override
  String uri() {
    return TestServers.redisClusterUri();
  }

  /** {@code key(name + "-0")}, {@code key(name + "-1")}, ... until they fall in slots of every master. */
  private List<String> keysOnEveryNode(String name) {
    List<String> keys = new ArrayList<>();
    Set<String> nodes = new HashSet<>();
    for (int i = 0; nodes.size() < clients.rawRedis.masters(); i++) {
      assertThat(i).as("keys named %s-N on all %d masters", name, clients.rawRedis.masters()).isLessThan(1000);
      keys.add(key(name + "-" + i));
      nodes.add(clients.rawRedis.nodeOf(keys.get(i)));
    }
    return keys;
  }

  @Test
  void poolsInSlotsOfEveryNodeRegisterAndClaimAtomically() {
    List<String> pools = keysOnEveryNode("services");
    for (int i = 0; i < pools.size(); i++) {
      String pool = pools.get(i);
      long s = clients.store.membership(pool).register("m" + i, MemberMeta.of(1, 1), Duration.ofSeconds(30));
      long t = clients.store.ownership(pool).claim("u" + i, "m" + i, s).orElseThrow();
      assertThat(clients.peer.seedKeys().list(pool)).containsExactly("m" + i);
      assertThat(clients.peer.ownership(pool).validToken("u" + i, "m" + i, s, t)).isTrue();
      assertThat(clients.peer.ownership(pool).release("u" + i, "m" + i, t)).isTrue();
      clients.store.membership(pool).deregister("m" + i, s);
      assertThat(clients.peer.seedKeys().list(pool)).isEmpty();
    }
  }

  @Test
  void namesWithColonsAndBracesWorkForPoolsGroupsUnitsAndLeases() {
    // no tag, an empty tag, a '}' without '{', a '{' without '}', a real tag, a tag after a stray '}'
    for (String name : List.of("app:robots:list", "x{}", "a}b", "{}:q", "p{q", "{tag}:list", "}{t}")) {
      String pool = key(name);
      String member = "10.0.0.1:80{" + name + "}";
      long s = clients.store.membership(pool).register(member, MemberMeta.of(1, 1), Duration.ofSeconds(30));
      assertThat(clients.peer.seedKeys().list(pool)).as(pool).containsExactly(member);
      List<String> units = List.of("u:1", "u{2}", "u}3{", name);
      Map<String, Long> tokens = clients.store.ownership(pool).claimAll(units, member, s);
      assertThat(tokens).as(pool).containsOnlyKeys(units);
      assertThat(clients.peer.ownership(pool).validToken("u{2}", member, s, tokens.get("u{2}"))).isTrue();
      assertThat(clients.peer.ownership(pool).ownersOf(List.of("u}3{", "none"))).containsOnlyKeys("u}3{");
      assertThat(clients.store.ownership(pool).release("u:1", member, tokens.get("u:1"), Duration.ofSeconds(30))).isTrue();
      assertThat(clients.peer.ownership(pool).holds()).containsOnlyKeys("u:1");
      assertThat(clients.store.membership(pool).renew(member, s, Duration.ofSeconds(30))).isTrue();
      clients.store.membership(pool).deregister(member, s);
      assertThat(clients.peer.seedKeys().list(pool)).isEmpty();

      String table = key(name + ":table");
      String publisher = "pool:{" + name + "}";
      Lease lease = clients.store.leadership().tryAcquire(Tables.leaseName(table, publisher), "d1", Duration.ofSeconds(30))
          .orElseThrow();
      assertThat(clients.store.tables().publish(lease, table, publisher, Map.of(member, "u{2},u}3{"))).isEqualTo(1);
      assertThat(clients.peer.tables().read(table, member)).contains("u{2},u}3{");
      assertThat(clients.peer.tables().epoch(table)).isEqualTo(1);
      assertThat(clients.peer.leadership().current(lease.name())).contains(lease);

      String leaseName = key("lease:" + name);
      Lease plain = clients.store.leadership().tryAcquire(leaseName, "d1", Duration.ofSeconds(30)).orElseThrow();
      assertThat(clients.peer.leadership().renew(plain, Duration.ofSeconds(30))).isTrue();
      clients.peer.leadership().release(plain);
      assertThat(clients.store.leadership().tryAcquire(leaseName, "d2", Duration.ofSeconds(30)).orElseThrow().token())
          .isGreaterThan(plain.token());
    }
  }

  @Test
  void isACluster() {
    assertThat(clients.store.config().cluster()).isTrue();
    assertThat(clients.store.describe()).startsWith("redis-cluster://127.0.0.1:");
  }

  @Test
  void opensThroughStoresWithAClusterUri() {
    String uri = "redis-cluster://" + clients.store.config().addresses().get(0) + "?timeout=3s&client_name=allot-test";
    try (Store s = Stores.open(uri)) {
      assertThat(s).isInstanceOf(RedisStore.class);
      assertThat(((RedisStore) s).config().commandTimeout()).isEqualTo(Duration.ofSeconds(3));
      String k = key("units");
      s.seedKeys().replaceList(k, List.of("u1"));
      assertThat(clients.store.seedKeys().list(k)).containsExactly("u1");
    }
  }

  @Test
  void keyTopicsGetKeyspaceNotificationsFromTheNodeOfEachKey() throws Exception {
    clients.rawRedis.configSet("notify-keyspace-events", "Kl");
    try {
      for (String k : keysOnEveryNode("services")) {
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        try (Subscription ignored = clients.peer.notifications().subscribe(Topic.key(k), got::add)) {
          clients.raw.lpush(k, "10.0.0.1:8080"); // a Go service registering itself, not through allot
          assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("lpush");
        }
      }
    } finally {
      clients.rawRedis.configSet("notify-keyspace-events", "");
    }
  }

  @Test
  void tablesInSlotsOfEveryNodeArePublishedAtomically() {
    List<String> tables = keysOnEveryNode("table");
    for (int i = 0; i < tables.size(); i++) {
      String table = tables.get(i);
      Lease lease = clients.store.leadership().tryAcquire(Tables.leaseName(table, "g"), "d1", Duration.ofSeconds(30)).orElseThrow();
      assertThat(clients.store.tables().publish(lease, table, "g", Map.of("m" + i, "u" + i))).isEqualTo(1);
      assertThat(clients.peer.seedKeys().hash(table)).isEqualTo(Map.of("m" + i, "u" + i));
      assertThat(clients.peer.tables().epoch(table)).isEqualTo(1);
    }
  }
}
