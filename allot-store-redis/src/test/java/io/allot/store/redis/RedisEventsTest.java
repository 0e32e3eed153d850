package io.allot.store.redis;

import io.allot.testkit.RedisServer;
import org.junit.jupiter.api.AfterAll;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.EventRetention;
import io.allot.store.events.EventsContractTest;
import io.allot.store.events.NewEvent;
import io.allot.store.events.RecordedEvent;
import io.allot.testkit.TestServers;
import io.lettuce.core.cluster.SlotHash;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The events contract on a throwaway standalone Redis (two stores as two processes would
 * have), plus the layout: every key in one slot, and events that outlive the store that wrote them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisEventsTest extends EventsContractTest {
  /** Two stores and a raw connection on the Redis under test, closed after the class's tests. */
  @AutoClose
  final RedisClients clients = connect();

  /**
   * A throwaway Redis of this class's own, or null (the cluster subclass): the retention contract ("older events are
   * deleted on the next append", at most 1,000 per append) needs a history that other tests, on the shared Redis of
   * {@link TestServers#redisUri()}, have not filled with thousands of older events (CI run 64).
   */
  private RedisServer own;

  /** The clients of the server (or cluster) under test; called once, as the instance is made. */
  RedisClients connect() {
    own = RedisServer.start();
    return RedisClients.connect(own.uri());
  }

  @AfterAll
  void stopOwnServer() {
    if (own != null) {
      clients.close(); // before its server goes; closing again (@AutoClose) is harmless
      own.close();
    }
  }

  @Override
  protected Store store() {
    return clients.store;
  }

  @Override
  protected Store peer() {
    return clients.peer;
  }

  @Test
  void everyKeyIsInOneSlot() {
    int slot = SlotHash.getSlot(RedisEvents.SEQ);
    for (String k : List.of(RedisEvents.DATA, RedisEvents.BUCKETS, RedisEvents.ALL, RedisEvents.TIME,
        RedisEvents.STORE_WIDE, RedisEvents.bucket(pool()), RedisEvents.bucket("{x}:y"))) {
      assertThat(SlotHash.getSlot(k)).as(k).isEqualTo(slot);
    }
  }

  @Test
  void eventsOutliveTheStoreThatWroteThem() {
    RecordedEvent e = clients.store.events().append(new NewEvent(pool(), EventKind.MEMBER_DOWN, "distributor", "m1",
        "lease ended"), EventRetention.DEFAULT);
    try (RedisStore restarted = RedisStore.connect(clients.store.config())) {
      assertThat(restarted.events().query(EventQuery.all().inPool(pool())).events()).containsExactly(e);
      RecordedEvent next = restarted.events().append(new NewEvent(pool(), EventKind.MEMBER_UP, "distributor", "m1",
          ""), EventRetention.DEFAULT);
      assertThat(next.id()).isGreaterThan(e.id());
    }
  }
}
