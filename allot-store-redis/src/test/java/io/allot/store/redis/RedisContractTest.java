package io.allot.store.redis;

import static org.awaitility.Awaitility.await;

import io.allot.store.Store;
import io.allot.store.StoreContractTest;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The store contract on a Redis found by {@link #uri()}: a store and its peer (two connections, as two processes
 * would have) for cross-client behaviour, and a plain Lettuce connection that checks the raw layout and deletes
 * each test's keys (all under its random prefix) after it, so a shared server needs no flushing.
 *
 * <p>The contract expects a new pool to need no wait, which holds on a server that has kept its data for at least
 * the lost-state guard. The {@code TestServers} rule may hand out a throwaway server (or cluster) started moments
 * ago, on which the first claims of every pool would wait the guard: the suite first waits until every node is up
 * for the guard.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedisContractTest extends StoreContractTest {
  // set before the class's tests and closed after them; JUnit runs the lifecycle methods and tests on one thread
  RedisStore store;
  RedisStore peer;
  RawRedis rawRedis;
  /** {@link #rawRedis}'s commands. */
  RedisClusterCommands<String, String> raw;

  /** The store URI of the server (or cluster) the contract runs against, by the {@code TestServers} rule. */
  abstract String uri();

  @BeforeAll
  void connect() {
    String uri = uri();
    store = RedisStore.connect(RedisStoreConfig.fromUri(uri));
    peer = RedisStore.connect(RedisStoreConfig.fromUri(uri));
    rawRedis = RawRedis.connect(uri);
    raw = rawRedis.commands();
    long guardMillis = store.safety().lostStateGuard().toMillis();
    await("every node up for the lost-state guard").atMost(Duration.ofMillis(guardMillis).plus(PATIENCE))
        .pollInterval(Duration.ofMillis(100)).until(() -> rawRedis.minUptimeSeconds() * 1000 >= guardMillis);
  }

  @AfterAll
  void disconnect() {
    if (store != null) {
      store.close();
    }
    if (peer != null) {
      peer.close();
    }
    if (rawRedis != null) {
      rawRedis.close();
    }
  }

  @AfterEach
  void deleteTheTestsKeys() {
    rawRedis.deleteKeysContaining(prefix());
  }

  @Override
  protected Store store() {
    return store;
  }

  @Override
  protected Store peer() {
    return peer;
  }
}
