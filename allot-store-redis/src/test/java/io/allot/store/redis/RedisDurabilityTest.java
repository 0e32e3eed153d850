package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Safety;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The connect-time durability check on throwaway servers: a replica and an evicting {@code maxmemory-policy} are
 * refused naming the setting (eviction accepted with {@code allow_eviction=true}, as a finding); the persistence
 * settings become findings and {@link Safety#lossPossible()}; the guard and margin come from the URI.
 */
class RedisDurabilityTest {

  @Test
  void aReplicaIsRefusedNamingItsRole() {
    try (RedisServer master = RedisServer.start();
        RedisServer replica = RedisServer.builder().args("--replicaof", "127.0.0.1", Integer.toString(master.port()))
            .start()) {
      assertThatThrownBy(() -> Stores.open(replica.uri()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("role:slave")
          .hasMessageContaining("replica")
          .hasMessageContaining(replica.address());
      try (Store store = Stores.open(master.uri())) {
        assertThat(store.safety().findings()).anySatisfy(f -> assertThat(f).contains("connected_slaves:1"));
      }
    }
  }

  @Test
  void anEvictingMaxmemoryPolicyIsRefusedUnlessAllowed() {
    try (RedisServer server = RedisServer.start()) {
      server.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
      assertThatThrownBy(() -> Stores.open(server.uri()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maxmemory-policy allkeys-lru")
          .hasMessageContaining("allow_eviction=true");
      try (Store store = Stores.open(server.uri() + "?allow_eviction=true")) {
        assertThat(store.safety().lossPossible()).isTrue();
        assertThat(store.safety().findings()).anySatisfy(f -> assertThat(f).contains("maxmemory-policy allkeys-lru"));
      }
    }
  }

  @Test
  void withoutAppendOnlyLossIsPossibleAndWithAppendFsyncAlwaysItIsNot() {
    try (RedisServer server = RedisServer.start()) {
      try (Store store = Stores.open(server.uri())) {
        assertThat(store.safety().lossPossible()).isTrue();
        assertThat(store.safety().findings()).singleElement().asString()
            .startsWith(server.address() + ": appendonly no").contains("lost-state guard");
      }
      server.command("CONFIG", "SET", "appendonly", "yes");
      try (Store store = Stores.open(server.uri())) {
        assertThat(store.safety().lossPossible()).isTrue();
        assertThat(store.safety().findings()).singleElement().asString().contains("appendfsync everysec");
      }
      server.command("CONFIG", "SET", "appendfsync", "always");
      try (Store store = Stores.open(server.uri())) {
        assertThat(store.safety().lossPossible()).isFalse();
        assertThat(store.safety().findings()).isEmpty();
      }
    }
  }

  @Test
  void aRenamedConfigCommandIsOneFindingAndLossIsAssumed() {
    try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("always")
        .args("--rename-command", "CONFIG", "").start(); Store store = Stores.open(server.uri())) {
      assertThat(store.safety().lossPossible()).isTrue();
      assertThat(store.safety().findings()).singleElement().asString().contains("CONFIG GET refused");
    }
  }

  @Test
  void theGuardAndTheMarginComeFromTheUri() {
    try (RedisServer server = RedisServer.start();
        Store defaults = Stores.open(server.uri());
        Store custom = Stores.open(server.uri() + "?guard=10s&clock_margin=50ms")) {
      assertThat(defaults.safety().lostStateGuard()).isEqualTo(Safety.DEFAULT_GUARD);
      assertThat(defaults.safety().clockMargin()).isEqualTo(Safety.DEFAULT_CLOCK_MARGIN);
      assertThat(custom.safety().lostStateGuard()).isEqualTo(Duration.ofSeconds(10));
      assertThat(custom.safety().clockMargin()).isEqualTo(Duration.ofMillis(50));
      assertThat(custom.safety().findings()).singleElement().asString().contains("appendonly no")
          .contains("lost-state guard (10000 ms)");
    }
  }

  @Test
  void theRuleNamesEachNodeOfACluster() {
    RedisStoreConfig config = RedisStoreConfig.builder("a:1", "b:2").build();
    List<RedisDurability.NodeFacts> nodes = List.of(
        new RedisDurability.NodeFacts("a:1", java.util.Map.of("appendonly", "yes", "appendfsync", "always",
            "maxmemory-policy", "noeviction"), null, "# Replication\r\nrole:master\r\nconnected_slaves:0\r\n", null),
        new RedisDurability.NodeFacts("b:2", java.util.Map.of("appendonly", "no", "appendfsync", "everysec",
            "maxmemory-policy", "noeviction"), null, null, "NOPERM this user has no permissions to run 'info'"));
    Safety safety = RedisDurability.evaluate(nodes, config);
    assertThat(safety.lossPossible()).isTrue();
    assertThat(safety.findings()).hasSize(2).allSatisfy(f -> assertThat(f).startsWith("b:2: "));
    assertThat(safety.findings().get(1)).contains("INFO refused").contains("NOPERM");
    assertThat(RedisDurability.evaluate(nodes.subList(0, 1), config).lossPossible()).isFalse();
  }
}
