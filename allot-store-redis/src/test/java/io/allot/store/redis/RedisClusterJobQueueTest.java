package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import io.allot.testkit.TestServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The job-queue contract (and the Redis-specific tests of {@link RedisJobQueueTest}) on the throwaway 3-master
 * Redis Cluster of {@link TestServers#redisClusterUri()}, plus queues whose slots are on every master.
 */
class RedisClusterJobQueueTest extends RedisJobQueueTest {

  @Override
  RedisClients connect() {
    return RedisClients.connectCluster();
  }

  @Test
  void queuesOnEveryMasterWork() {
    clients.rawRedis.onEveryMaster("q-", (base, i) -> {
      String name = base + "-" + i + (i % 2 == 0 ? "" : ":" + i);
      JobQueue q = queue(name);
      q.enqueue(List.of(NewJob.of("a"), NewJob.of("b").withPriority(1)));
      ClaimedJob c = q.claim("w", 1, Duration.ofMinutes(1)).get(0);
      assertThat(c.key()).isEqualTo("b");
      assertThat(clients.peer.jobQueue(name).finish("b", c.token())).isEqualTo(JobOutcome.FINISHED);
      return keys(name)[0];
    });
  }
}
