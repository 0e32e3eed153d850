package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.StoreContractTest;
import io.lettuce.core.cluster.SlotHash;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole contract against a throwaway 3-node Redis Cluster (3 masters, no replicas) on free ports; skipped with
 * a message when one cannot be started here.
 */
class RedisClusterStoreTest extends StoreContractTest {
  private static final List<RedisServerProcess> nodes = new ArrayList<>();
  private static RedisStore store;
  private static RedisStore peer;

  @BeforeAll
  static void startCluster() {
    Assumptions.assumeTrue(RedisServerProcess.available(), "no redis-server binary: Cluster tests skipped");
    try {
      for (int i = 0; i < 3; i++) {
        nodes.add(RedisServerProcess.start(RedisServerProcess.freePort(true), true, "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000"));
      }
      List<String> create = new ArrayList<>(List.of("--cluster", "create"));
      nodes.forEach(n -> create.add(n.address()));
      create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
      String out = nodes.get(0).cli(create.toArray(new String[0]));
      if (!out.contains("All 16384 slots covered")) {
        throw new IOException("redis-cli --cluster create failed: " + out);
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      for (RedisServerProcess n : nodes) {
        while (!n.cli("cluster", "info").contains("cluster_state:ok")) {
          if (System.nanoTime() > deadline) {
            throw new IOException("cluster did not reach cluster_state:ok: " + n.cli("cluster", "info"));
          }
          RedisServerProcess.sleep(50);
        }
      }
      List<String> addresses = nodes.stream().map(RedisServerProcess::address).toList();
      store = RedisStore.connect(RedisStoreConfig.builder(addresses).build());
      peer = RedisStore.connect(RedisStoreConfig.builder(addresses).build());
    } catch (IOException | RuntimeException e) {
      stopCluster();
      Assumptions.abort("cannot start a throwaway Redis Cluster here: " + e);
    }
  }

  @AfterAll
  static void stopCluster() {
    if (store != null) {
      store.close();
    }
    if (peer != null) {
      peer.close();
    }
    nodes.forEach(RedisServerProcess::close);
    nodes.clear();
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
  void poolsInSlotsOfEveryNodeRegisterAndClaimAtomically() {
    Set<Integer> slots = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      String pool = key("services-" + i);
      slots.add(SlotHash.getSlot(pool));
      long s = store.register(pool, "m" + i, 1, 1, Duration.ofSeconds(30));
      long t = store.claim(pool, "u" + i, "m" + i, s).orElseThrow();
      assertThat(peer.list(pool)).containsExactly("m" + i);
      assertThat(peer.validToken(pool, "u" + i, t)).isTrue();
      assertThat(peer.releaseUnit(pool, "u" + i, "m" + i, t)).isTrue();
      store.deregister(pool, "m" + i, s);
      assertThat(peer.list(pool)).isEmpty();
    }
    assertThat(slots).hasSizeGreaterThan(1);
  }

  @Test
  void aPoolKeyThatCannotShareASlotWithItsCompanionsIsRefused() {
    String pool = "x{}";
    Assumptions.assumeTrue(SlotHash.getSlot(pool) != SlotHash.getSlot(RedisKeys.members(pool)));
    assertThatThrownBy(() -> store.register(pool, "m", 1, 1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void isACluster() {
    assertThat(store.config().cluster()).isTrue();
  }

  @Test
  void tablesInSlotsOfEveryNodeArePublishedAtomically() {
    Set<Integer> slots = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      String table = key("table-" + i);
      slots.add(SlotHash.getSlot(table));
      Lease lease = store.tryAcquire(Store.tableLeaseName(table, "g"), "d1", Duration.ofSeconds(30)).orElseThrow();
      assertThat(store.publish(lease, table, "g", Map.of("m" + i, "u" + i))).isEqualTo(1);
      assertThat(peer.hash(table)).isEqualTo(Map.of("m" + i, "u" + i));
      assertThat(peer.epoch(table)).isEqualTo(1);
    }
    assertThat(slots).hasSizeGreaterThan(1);
  }

  @Test
  void aTableKeyThatCannotShareASlotWithItsCompanionsIsRefused() {
    String table = "x{}"; // empty tag: hashed whole, and a '}' breaks wrapping it in a new tag
    Assumptions.assumeTrue(SlotHash.getSlot(table) != SlotHash.getSlot(RedisKeys.epoch(table)));
    assertThatThrownBy(() -> store.tryAcquire(Store.tableLeaseName(table, "g"), "d1", Duration.ofSeconds(1))
        .ifPresent(l -> store.publish(l, table, "g", Map.of("m", "u"))))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
