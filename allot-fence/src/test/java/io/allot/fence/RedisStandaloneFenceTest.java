package io.allot.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.Deque;
import org.junit.jupiter.api.Test;

/** {@link RedisFence} on a standalone Redis (TestServers'). */
class RedisStandaloneFenceTest extends RedisFenceContract {
  private StatefulRedisConnection<String, String> connection;

  @Override
  RedisClusterCommands<String, String> connect(Deque<AutoCloseable> opened) {
    RedisClient client = RedisClient.create(TestServers.redisUri());
    opened.push(client::shutdown);
    connection = client.connect();
    opened.push(connection);
    return connection.sync();
  }

  /** The first call on a server that does not know the script (or forgot it) loads it. */
  @Test
  void worksAfterAScriptFlush() {
    connection.sync().scriptFlush();
    fence.set(p + "k", "v", 3);
    assertThat(connection.sync().scriptExists(connection.sync().digest(RedisFence.SCRIPT))).containsExactly(true);
    fence.set(p + "k", "w", 3);
    assertThat(connection.sync().get(p + "k")).isEqualTo("w");
  }
}
