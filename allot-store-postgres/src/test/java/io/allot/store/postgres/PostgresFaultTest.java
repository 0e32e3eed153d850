package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.testkit.Ports;
import io.allot.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Server failures, on a throwaway {@link PostgresServer}: the server is killed (SIGKILL to every server process, a
 * crash), calls fail fast with {@link StoreUnavailableException}, the server restarts on the same port, and the same
 * store object recovers, pub/sub included. A busy pool, on the server of {@code TestServers.postgresUri()}.
 */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
class PostgresFaultTest {
  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

  private static PostgresStoreConfig config(PostgresServer pg) {
    // trust authentication ignores the password: it is there to check that no message shows it
    return PostgresStoreConfig.builder("postgresql://postgres:s3cret-pw@" + pg.address() + "/postgres")
        .connectionTimeout(CONNECTION_TIMEOUT)
        .socketTimeout(Duration.ofSeconds(3))
        .reconnectDelay(Duration.ofMillis(20), Duration.ofMillis(300))
        .listenerPoll(Duration.ofMillis(200))
        .subscribeTimeout(Duration.ofSeconds(2))
        .build();
  }

  @Test
  void callsFailFastWhileTheServerIsDownAndTheSameStoreRecovers() throws Exception {
    // durable (fsync on): a restart loses nothing, so claims need not wait the lost-state guard afterwards
    try (PostgresServer pg = PostgresServer.builder().setting("fsync", "on").start();
        PostgresStore store = PostgresStore.connect(config(pg))) {
      String pool = "services";
      long session = store.membership(pool).register("m1", MemberMeta.of(1, 10), Duration.ofSeconds(60));
      long token = store.ownership(pool).claim("u1", "m1", session).orElseThrow();
      Lease lease = store.leadership().tryAcquire(Tables.leaseName("table", "g"), "d1", Duration.ofSeconds(60))
          .orElseThrow();
      assertThat(store.tables().publish(lease, "table", "g", Map.of("m1", "u1"))).isEqualTo(1);
      BlockingQueue<String> got = new LinkedBlockingQueue<>();
      Subscription sub = store.notifications().subscribe(Topic.named("chan"), got::add);
      store.notifications().publish(Topic.named("chan"), "before");
      assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("before");

      pg.kill();

      List<Long> millis = new ArrayList<>();
      List<Executable> calls = List.of(
          () -> store.clock().timeMillis(),
          () -> store.ownership(pool).claim("u2", "m1", session),
          () -> store.tables().publish(lease, "table", "g", Map.of("m1", "u1,u2")),
          () -> store.membership(pool).renew("m1", session, Duration.ofSeconds(60)),
          () -> store.seedKeys().list(pool),
          () -> store.notifications().publish(Topic.named("chan"), "lost"),
          () -> store.notifications().subscribe(Topic.named("other"), m -> { }),
          () -> store.clock().timeMillis());
      for (Executable call : calls) {
        long t0 = System.nanoTime();
        assertThatThrownBy(call::execute)
            .isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining(pg.address())
            .satisfies(e -> assertThat(messages(e)).doesNotContain("s3cret-pw"));
        millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      }
      // and keep failing at once for as long as the server is away (HikariCP keeps retrying in the background;
      // 6 s is long enough for its backoff to reach its 5 s cap)
      await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
          .untilAsserted(() -> {
            long t1 = System.nanoTime();
            assertThatThrownBy(() -> store.clock().timeMillis()).isInstanceOf(StoreUnavailableException.class);
            millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
          });
      System.out.println("failure latencies while down (ms): " + millis);
      // "at once" against "after waiting for a connection": the bound is the pool's connection timeout, which a call
      // that waited would have spent (250 ms was a speed bound, and failed on a loaded 2-core machine)
      assertThat(millis.get(0)).as("the first call waits at most for a pooled connection")
          .isLessThan(CONNECTION_TIMEOUT.toMillis() + 5000);
      assertThat(millis.subList(1, millis.size())).as("then every call fails without waiting for a connection")
          .allSatisfy(ms -> assertThat(ms).isLessThan(CONNECTION_TIMEOUT.toMillis()));

      pg.restart();

      long t0 = System.nanoTime();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> succeeds(() -> store.clock().timeMillis()));
      long recoveryMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      // a figure, not an assertion: it answers once the listener reconnected (backoff <= 300 ms here), without
      // waiting for HikariCP's backoff (up to 5 s); how soon depends on the machine's load
      System.out.println("first successful call " + recoveryMillis + " ms after the restart");
      // committed data survived the crash (WAL replay); fencing still works
      assertThat(store.membership(pool).renew("m1", session, Duration.ofSeconds(60))).isTrue();
      assertThat(store.ownership(pool).claim("u1", "m1", session)).hasValue(token);
      assertThat(store.tables().publish(lease, "table", "g", Map.of("m1", "u1,u2"))).isEqualTo(2);
      assertThat(store.seedKeys().hash("table")).isEqualTo(Map.of("m1", "u1,u2"));

      // the subscription made before the crash hears new messages once the listener has re-LISTENed
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
        store.notifications().publish(Topic.named("chan"), "after");
        return "after".equals(got.poll(100, TimeUnit.MILLISECONDS));
      });
      assertThat(store.isListening()).isTrue();
      BlockingQueue<String> fresh = new LinkedBlockingQueue<>();
      try (Subscription s2 = store.notifications().subscribe(Topic.table("table"), fresh::add)) {
        store.tables().publish(lease, "table", "g", Map.of("m1", "u3"));
        assertThat(fresh.poll(10, TimeUnit.SECONDS)).isEqualTo("3");
      }
      sub.close();
    }
  }

  @Test
  void aStoreThatCannotConnectFailsAtOnceNamingTheUrlWithoutThePassword() throws Exception {
    int port = Ports.free(); // nothing listens there
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> PostgresStore.connect("postgresql://alice:s3cret-pw@127.0.0.1:" + port + "/db"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("postgresql://alice@127.0.0.1:" + port + "/db")
        .satisfies(e -> assertThat(messages(e)).doesNotContain("s3cret-pw"));
    // fails instead of hanging; 15 s is far below any hang and above a loaded machine's first connect
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(15_000);

    assertThatThrownBy(() -> PostgresStore.connect("jdbc:postgresql://127.0.0.1:" + port
        + "/db?user=alice&password=s3cret-pw"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("jdbc:postgresql://127.0.0.1:" + port + "/db?user=alice")
        .satisfies(e -> assertThat(messages(e)).doesNotContain("s3cret-pw"));
  }

  @Test
  void aBusyPoolTimesOutAsUnavailableWithoutDeclaringTheServerDown() throws Exception {
    ExecutorService exec = Executors.newSingleThreadExecutor();
    try (TestSchema schema = TestSchema.random();
        PostgresStore store = PostgresStore.connect(PostgresStoreConfig.builder(schema.uri()).maxPoolSize(1)
            .connectionTimeout(Duration.ofMillis(500)).build());
        Connection raw = TestSchema.raw()) {
      store.seedKeys().addToList("k", "a");
      raw.setAutoCommit(false);
      try (Statement st = raw.createStatement()) { // holds the key's row lock: addToList will wait for it
        st.execute("SELECT 1 FROM " + schema.quoted() + ".keys WHERE key = 'k' FOR UPDATE");
      }
      // takes the only connection
      Future<Boolean> blocked = exec.submit(() -> store.seedKeys().addToList("k", "b"));
      await().atMost(Duration.ofSeconds(10)).until(() -> schema.lockWaiters() > 0);
      assertThatThrownBy(() -> store.clock().timeMillis())
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("no free connection");
      raw.rollback();
      assertThat(blocked.get(10, TimeUnit.SECONDS)).isTrue();
      // answers at once: a store that had declared the server down would fail this call, not slow it
      assertThat(store.clock().timeMillis()).isPositive();
      assertThat(store.seedKeys().list("k")).containsExactly("b", "a");
    } finally {
      exec.shutdownNow();
    }
  }

  /**
   * A claim that waits too long for a lock (here the pool's row, held by another transaction) is cancelled by the
   * server at the connection's statement_timeout, below the client's socket timeout, so it fails as unavailable
   * and is rolled back; without it the client would give up at its socket timeout while the server still waits,
   * and apply the claim once the lock is free: a unit owned by a session that was told its claim failed.
   */
  @Test
  void aStatementThatRunsTooLongIsCancelledByTheServerInsteadOfAppliedLater() throws Exception {
    try (TestSchema schema = TestSchema.random();
        PostgresStore store = PostgresStore.connect(PostgresStoreConfig.builder(schema.uri())
            .socketTimeout(Duration.ofSeconds(2)).build());
        Connection raw = TestSchema.raw()) {
      assertThat(store.config().statementTimeout()).isEqualTo(Duration.ofMillis(1500));
      long session = store.membership("p").register("m1", MemberMeta.DEFAULT, Duration.ofSeconds(60));
      raw.setAutoCommit(false);
      try (Statement st = raw.createStatement()) { // holds the pool's row: the claim waits for it
        st.execute("SELECT 1 FROM " + schema.quoted() + ".pools WHERE pool = 'p' FOR UPDATE");
      }
      assertThatThrownBy(() -> store.ownership("p").claim("u", "m1", session))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("statement timeout");
      raw.rollback();
      await().atMost(Duration.ofSeconds(10)).until(() -> schema.activeStatements() == 0);
      assertThat(store.ownership("p").owners()).as("the claim was not applied after the client gave up").isEmpty();
      assertThat(store.ownership("p").claim("u", "m1", session)).as("the connection still works").isPresent();
    }
  }

  private static boolean succeeds(Supplier<?> call) {
    try {
      call.get();
      return true;
    } catch (StoreUnavailableException e) {
      return false;
    }
  }

  /** The messages of a throwable and all its causes. */
  private static String messages(Throwable e) {
    StringBuilder sb = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      sb.append(t.getMessage()).append('\n');
    }
    return sb.toString();
  }
}
