package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.tasks.TaskCreated;
import io.allot.store.tasks.TaskSpecs;
import io.allot.testkit.TestServers;
import org.junit.jupiter.api.Test;

/**
 * The task-specs contract (and the Redis-specific tests of {@link RedisTaskSpecsTest}) on the throwaway 3-master
 * Redis Cluster of {@link TestServers#redisClusterUri()}, plus pools whose spec keys are on every master.
 */
class RedisClusterTaskSpecsTest extends RedisTaskSpecsTest {

  @Override
  RedisClients connect() {
    return RedisClients.connectCluster();
  }

  @Test
  void poolsOnEveryMasterWork() {
    clients.rawRedis.onEveryMaster("p-", (base, i) -> {
      String pool = base + "-" + i + (i % 2 == 0 ? "" : "{" + i + "}");
      TaskSpecs s = specs(pool);
      assertThat(s.create("a", "{}", 1).outcome()).isEqualTo(TaskCreated.Outcome.CREATED);
      assertThat(clients.peer.taskSpecs(pool).delete("a").orElseThrow().deleted()).isTrue();
      assertThat(s.list()).hasSize(1);
      assertThat(s.version()).isEqualTo(2);
      return SpecKeys.names(pool)[0];
    });
  }
}
