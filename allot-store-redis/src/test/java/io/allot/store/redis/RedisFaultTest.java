package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.testkit.Ports;
import io.allot.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fault injection on a throwaway redis-server: crash (SIGKILL) and restart on the same port, pause (SIGSTOP), no
 * server at all. Calls must fail fast with {@link StoreUnavailableException} naming the address, never hang, and
 * the same store must recover by itself.
 */
class RedisFaultTest {
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private RedisServer server; // one per test: started before it, closed after it

  @BeforeEach
  void startServer() {
    server = RedisServer.start();
  }

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private RedisStoreConfig.Builder config() {
    return RedisStoreConfig.builder(server.address())
        .commandTimeout(COMMAND_TIMEOUT)
        .connectTimeout(Duration.ofSeconds(1))
        .reconnectDelay(Duration.ofMillis(10), Duration.ofMillis(300));
  }

  @Test
  void crashFailsFastAndTheSameStoreRecoversAfterRestart() throws Exception {
    try (RedisStore store = RedisStore.connect(config().build())) {
      store.seedKeys().addToList("units", "u1");
      BlockingQueue<String> got = new LinkedBlockingQueue<>();
      Subscription sub = store.notifications().subscribe(Topic.named("chan"), got::add);
      store.notifications().publish(Topic.named("chan"), "before");
      assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("before");

      server.kill();

      Lease stale = new Lease(Tables.leaseName("table", "g"), "d1", 1);
      List<ThrowingRunnable> calls = List.of(
          () -> store.seedKeys().list("units"),
          () -> store.seedKeys().addToList("units", "u2"),
          () -> store.seedKeys().removeFromList("units", "u1"),
          () -> store.seedKeys().hash("table"),
          () -> store.seedKeys().replaceList("units", List.of("x")),
          () -> store.clock().timeMillis(),
          () -> store.leadership().tryAcquire("leader", "d1", Duration.ofSeconds(5)),
          () -> store.leadership().renew(stale, Duration.ofSeconds(5)),
          () -> store.leadership().release(stale),
          () -> store.leadership().current("leader"),
          () -> store.tables().publish(stale, "table", "g", Map.of("m", "u")),
          () -> store.tables().epoch("table"),
          () -> store.notifications().publish(Topic.named("chan"), "lost"),
          () -> store.notifications().subscribe(Topic.named("other"), m -> { }),
          () -> store.notifications().subscribe(Topic.key("units"), m -> { }),
          () -> store.membership("pool").register("m1", MemberMeta.DEFAULT, Duration.ofSeconds(5)),
          () -> store.membership("pool").members(),
          () -> store.ownership("pool").claim("u1", "m1", 1),
          () -> store.ownership("pool").owners());
      for (ThrowingRunnable call : calls) {
        long t0 = System.nanoTime();
        assertThatThrownBy(call::run)
            .isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining(server.address());
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(COMMAND_TIMEOUT.plusSeconds(1));
      }
      // once the loss is noticed, calls are rejected at once rather than after the command timeout
      await().atMost(Duration.ofSeconds(10)).until(() -> !store.isConnected());
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> store.seedKeys().list("units")).isInstanceOf(StoreUnavailableException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(COMMAND_TIMEOUT.dividedBy(2));

      server.restart(); // same port, empty data set

      await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
          .ignoreException(StoreUnavailableException.class)
          .until(() -> store.seedKeys().list("units").isEmpty());
      assertThat(store.seedKeys().addToList("units", "u3")).isTrue();
      assertThat(store.seedKeys().list("units")).containsExactly("u3");
      Lease lease = store.leadership().tryAcquire(Tables.leaseName("table", "g"), "d1", Duration.ofSeconds(5)).orElseThrow();
      assertThat(store.tables().publish(lease, "table", "g", Map.of("m", "u"))).isEqualTo(1);

      // the subscription made before the crash is re-established by itself (messages meanwhile are lost)
      awaitDelivery(store, got, "chan");
      sub.close();
    }
  }

  @Test
  void aPausedServerTimesOutAndTheBoundedQueueRejectsAtOnce() throws Exception {
    Duration timeout = Duration.ofMillis(500);
    try (RedisStore store = RedisStore.connect(config().commandTimeout(timeout).requestQueueSize(3).build())) {
      store.seedKeys().replaceList("units", List.of("u1"));
      server.pause();
      try {
        for (int i = 0; i < 3; i++) {
          long t0 = System.nanoTime();
          assertThatThrownBy(() -> store.seedKeys().list("units"))
              .isInstanceOf(StoreUnavailableException.class)
              .hasMessageContaining("did not answer")
              .hasMessageContaining(server.address());
          assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(timeout.minusMillis(50),
              timeout.plusSeconds(2));
        }
        // three unanswered commands fill the queue: the next call is refused without waiting
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> store.seedKeys().list("units")).isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("exceeded");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(timeout);
      } finally {
        server.resume();
      }
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .ignoreException(StoreUnavailableException.class)
          .untilAsserted(() -> assertThat(store.seedKeys().list("units")).containsExactly("u1"));
    }
  }

  @Test
  void aWriteInFlightWhenTheConnectionDropsFailsAndIsNotReplayedAfterReconnect() throws Exception {
    try (RedisStore store = RedisStore.connect(config().commandTimeout(Duration.ofSeconds(20)).build())) {
      assertThat(store.seedKeys().list("units")).isEmpty();
      // writes (scripts included) are held by the server, reads and the reconnect handshake are not
      assertThat(server.command("CLIENT", "PAUSE", "20000", "WRITE")).isEqualTo("OK");
      try {
        CompletableFuture<Boolean> write =
            CompletableFuture.supplyAsync(() -> store.seedKeys().addToList("units", "in-flight"));
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
            .until(() -> server.command("INFO", "clients").contains("blocked_clients:1"));
        // the server drops the connection with the write sent but unanswered (a graceful close, unlike a crash)
        server.command("CLIENT", "KILL", "TYPE", "normal");
        assertThatThrownBy(() -> write.get(5, TimeUnit.SECONDS))
            .as("fails at once instead of waiting to be replayed")
            .hasCauseInstanceOf(StoreUnavailableException.class);
      } finally {
        server.command("CLIENT", "UNPAUSE");
      }
      await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
          .ignoreException(StoreUnavailableException.class)
          .until(() -> store.seedKeys().list("units") != null);
      // a replayed command would be flushed before any new one on the reconnected connection
      assertThat(store.seedKeys().list("units")).as("the failed write must not be replayed").isEmpty();
      assertThat(store.seedKeys().addToList("units", "after")).isTrue();
    }
  }

  @Test
  void scriptsRunAgainAfterTheScriptCacheIsFlushed() {
    try (RedisStore store = RedisStore.connect(config().build())) {
      server.command("SCRIPT", "FLUSH");
      assertThat(store.seedKeys().addToList("list", "a")).isTrue();
      server.command("SCRIPT", "FLUSH");
      Lease lease = store.leadership().tryAcquire(Tables.leaseName("t", "g"), "d1", Duration.ofSeconds(5)).orElseThrow();
      server.command("SCRIPT", "FLUSH");
      assertThat(store.tables().publish(lease, "t", "g", Map.of("m", "u"))).isEqualTo(1);
    }
  }

  @Test
  void tokensKeepIncreasingAcrossARestartThatLostTheData() {
    try (RedisStore store = RedisStore.connect(config().build())) {
      Lease before = store.leadership().tryAcquire("leader", "d1", Duration.ofSeconds(30)).orElseThrow();
      server.restart();
      Lease after = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
          .ignoreException(StoreUnavailableException.class)
          .until(() -> store.leadership().tryAcquire("leader", "d2", Duration.ofSeconds(30)), java.util.Optional::isPresent)
          .orElseThrow();
      assertThat(after.token()).isGreaterThan(before.token());
      assertThat(store.leadership().renew(before, Duration.ofSeconds(30))).isFalse();
    }
  }

  @Test
  void noServerFailsToConnectFastWithTheAddress() {
    int port = Ports.free();
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> RedisStore.connect(RedisStoreConfig.builder("127.0.0.1:" + port)
            .connectTimeout(Duration.ofSeconds(1)).build()))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("127.0.0.1:" + port);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
  }

  /** Re-sends until one message arrives: pub/sub messages sent before re-subscription are simply lost. */
  static void awaitDelivery(Store store, BlockingQueue<String> got, String channel) {
    got.clear();
    Consumer<String> send = m -> {
      try {
        store.notifications().publish(Topic.named(channel), m);
      } catch (StoreUnavailableException e) {
        // not yet
      }
    };
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
      send.accept("after");
      return "after".equals(got.poll(100, TimeUnit.MILLISECONDS));
    });
  }
}
