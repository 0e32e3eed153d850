package io.allot.fence;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.Deque;

/** {@link RedisFence} on a Redis Cluster of 3 masters (TestServers' throwaway one): the keys of a script share a slot. */
class RedisClusterFenceTest extends RedisFenceContract {

  @Override
  RedisClusterCommands<String, String> connect(Deque<AutoCloseable> opened) {
    RedisClusterClient client = RedisClusterClient.create(TestDbs.redisClusterSeeds());
    opened.push(client::shutdown);
    StatefulRedisClusterConnection<String, String> connection = client.connect();
    opened.push(connection);
    return connection.sync();
  }
}
