package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisClusterTest {

  @Test
  void comesUpLosesANodeAndGetsItBack() {
    try (RedisCluster cluster = RedisCluster.builder().nodeTimeout(Duration.ofMillis(500)).start()) {
      assertThat(cluster.nodes()).hasSize(3);
      assertThat(cluster.uri()).isEqualTo("redis-cluster://" + String.join(",", cluster.addresses()));
      assertThat(cluster.ok()).isTrue();
      for (RedisServer n : cluster.nodes()) {
        assertThat(n.command("CLUSTER", "INFO")).contains("cluster_slots_assigned:16384");
      }
      assertThat(cluster.node(0).cli("-c", "SET", "{a}k", "v")).isEqualTo("OK");
      assertThat(cluster.node(1).cli("-c", "GET", "{a}k")).isEqualTo("v");

      cluster.kill(1);
      await().atMost(Duration.ofSeconds(20))
          .until(() -> cluster.node(0).command("CLUSTER", "INFO").contains("cluster_state:fail"));
      cluster.restart(1);
      assertThat(cluster.ok()).isTrue();
      assertThat(cluster.node(1).command("CLUSTER", "INFO")).contains("cluster_state:ok");
    }
  }
}
