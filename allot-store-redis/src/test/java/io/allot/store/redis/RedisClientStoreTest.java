package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import io.allot.testkit.TestServers;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisStore#connect(RedisClient, RedisStoreConfig)} on an application's own Lettuce client to the test
 * server (names of the test's own): the store works, including pub/sub; closing it leaves the client running; a
 * client that queues commands while disconnected is reported.
 */
class RedisClientStoreTest {
  private final String id = UUID.randomUUID().toString().substring(0, 8);
  private final RedisStoreConfig config = RedisStoreConfig.fromUri(TestServers.redisUri());
  private final RedisClient app = RedisClient.create(RedisURI.create(TestServers.redisUri()));

  @AfterEach
  void shutdown() {
    app.shutdown();
  }

  @Test
  void theStoreWorksThroughTheApplicationsClientAndLeavesItRunning() throws Exception {
    app.setOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .build());
    try (RedisStore store = RedisStore.connect(app, config)) {
      assertThat(store.safety().findings()).noneMatch(f -> f.contains("RedisClient"));
      assertThat(store.clock().timeMillis()).isPositive();
      JobQueue queue = store.jobQueue("client-" + id);
      assertThat(queue.enqueue(List.of(NewJob.of("a")))).isEqualTo(1);
      assertThat(queue.get("a")).isPresent();
      BlockingQueue<String> got = new LinkedBlockingQueue<>();
      try (Subscription ignored = store.notifications().subscribe(Topic.named("client-" + id), got::add)) {
        store.notifications().publish(Topic.named("client-" + id), "hello");
        assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
      }
    }
    try (var connection = app.connect()) {
      assertThat(connection.sync().ping()).isEqualTo("PONG");
    }
  }

  @Test
  void aClientThatQueuesCommandsWhileDisconnectedIsAFinding() {
    try (RedisStore store = RedisStore.connect(app, config)) {
      assertThat(store.safety().findings()).anyMatch(f -> f.contains("REJECT_COMMANDS"));
    }
  }

  @Test
  void aClusterIsRefused() {
    RedisStoreConfig cluster = RedisStoreConfig.builder("127.0.0.1:7000", "127.0.0.1:7001").cluster(true).build();
    assertThatThrownBy(() -> RedisStore.connect(app, cluster)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("standalone");
  }
}
