package io.allot.store.redis;

import static org.awaitility.Awaitility.await;

import io.allot.store.Store;
import io.allot.store.StoreContractTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
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
  /** Two stores and a raw connection on the Redis of {@link #uri()}, closed after the class's tests. */
  @AutoClose
  final RedisClients clients = RedisClients.connect(uri());

  /** The store URI of the server (or cluster) the contract runs against, by the {@code TestServers} rule. */
  abstract String uri();

  @BeforeAll
  void waitForTheGuard() {
    long guardMillis = clients.store.safety().lostStateGuard().toMillis();
    await("every node up for the lost-state guard").atMost(Duration.ofMillis(guardMillis).plus(PATIENCE))
        .pollInterval(Duration.ofMillis(100)).until(() -> clients.rawRedis.minUptimeSeconds() * 1000 >= guardMillis);
  }

  @AfterEach
  void deleteTheTestsKeys() {
    clients.rawRedis.deleteKeysContaining(prefix());
  }

  @Override
  protected Store store() {
    return clients.store;
  }

  @Override
  protected Store peer() {
    return clients.peer;
  }
}
