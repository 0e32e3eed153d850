package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.allot.testkit.RedisServer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Topic#key} on a throwaway server with keyspace notifications on: changes made by others (an original-style
 * service's own LPUSH) arrive through the keyspace channel of the configured database.
 */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
class RedisKeyTopicTest {
  private static final long PATIENCE_MS = 10_000;

  @Test
  void keyTopicsHearTheKeyspaceChannelOfTheConfiguredDatabaseOnly() throws Exception {
    try (RedisServer server = RedisServer.builder().args("--notify-keyspace-events", "Kl").start();
        Store store = Stores.open(server.uri() + "/2");
        RawRedis db0 = RawRedis.connect(server.uri());
        RawRedis db2 = RawRedis.connect(server.uri() + "/2")) {
      BlockingQueue<String> got = new LinkedBlockingQueue<>();
      try (Subscription ignored = store.notifications().subscribe(Topic.key("sys-services"), got::add)) {
        db2.commands().lpush("sys-services", "10.0.0.1:8080"); // not through allot: only the keyspace channel tells
        assertThat(got.poll(PATIENCE_MS, TimeUnit.MILLISECONDS)).isEqualTo("lpush");

        db0.commands().lpush("sys-services", "10.0.0.2:8080"); // another database: not this key
        store.notifications().publish(Topic.key("sys-services"), "barrier"); // after db 0's event, if it were sent
        assertThat(got.poll(PATIENCE_MS, TimeUnit.MILLISECONDS)).isEqualTo("barrier");

        assertThat(store.seedKeys().removeFromList("sys-services", "10.0.0.1:8080")).isTrue();
        assertThat(got.poll(PATIENCE_MS, TimeUnit.MILLISECONDS)).as("both channels announce it").isEqualTo("lrem");
        assertThat(got.poll(PATIENCE_MS, TimeUnit.MILLISECONDS)).isEqualTo("lrem");
        assertThat(db0.commands().pubsubChannels()).contains("allot:changes:sys-services",
            "__keyspace@2__:sys-services");
      }
      assertThat(db0.commands().pubsubChannels()).as("closing unsubscribes both channels")
          .doesNotContain("allot:changes:sys-services", "__keyspace@2__:sys-services");
    }
  }
}
