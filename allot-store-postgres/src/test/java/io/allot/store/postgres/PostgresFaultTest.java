package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 * Server failures, on a throwaway cluster (skipped with a message when one cannot be started here): the server is
 * killed ({@code pg_ctl stop -m immediate}: every server process quits at once, like a crash), calls fail fast with
 * {@link StoreUnavailableException}, the server restarts on the same port, and the same store object recovers,
 * pub/sub included.
 */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
class PostgresFaultTest {
  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

  private static PostgresStoreConfig config(PgCluster pg) {
    // trust authentication ignores the password: it is there to check that no message shows it
    return PostgresStoreConfig.builder(pg.url("postgres:s3cret-pw"))
        .connectionTimeout(CONNECTION_TIMEOUT)
        .socketTimeout(Duration.ofSeconds(3))
        .reconnectDelay(Duration.ofMillis(20), Duration.ofMillis(300))
        .listenerPoll(Duration.ofMillis(200))
        .subscribeTimeout(Duration.ofSeconds(2))
        .build();
  }

  @Test
  void callsFailFastWhileTheServerIsDownAndTheSameStoreRecovers() throws Exception {
    try (PgCluster pg = PgCluster.startOrSkip(); PostgresStore store = PostgresStore.connect(config(pg))) {
      String pool = "services";
      long session = store.register(pool, "m1", 1, 10, Duration.ofSeconds(60));
      long token = store.claim(pool, "u1", "m1", session).orElseThrow();
      Lease lease = store.tryAcquire(Store.tableLeaseName("table", "g"), "d1", Duration.ofSeconds(60)).orElseThrow();
      assertThat(store.publish(lease, "table", "g", Map.of("m1", "u1"))).isEqualTo(1);
      BlockingQueue<String> got = new LinkedBlockingQueue<>();
      Subscription sub = store.subscribe("chan", got::add);
      store.notify("chan", "before");
      assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("before");

      pg.stopImmediately();

      List<Long> millis = new ArrayList<>();
      List<Executable> calls = List.of(
          store::timeMillis,
          () -> store.claim(pool, "u2", "m1", session),
          () -> store.publish(lease, "table", "g", Map.of("m1", "u1,u2")),
          () -> store.renewMember(pool, "m1", session, Duration.ofSeconds(60)),
          () -> store.list(pool),
          () -> store.notify("chan", "lost"),
          () -> store.subscribe("other", m -> { }),
          store::timeMillis);
      for (Executable call : calls) {
        long t0 = System.nanoTime();
        assertThatThrownBy(call::execute)
            .isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("127.0.0.1:" + pg.port)
            .satisfies(e -> assertThat(messages(e)).doesNotContain("s3cret-pw"));
        millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      }
      // and keep failing at once for as long as the server is away (HikariCP keeps retrying in the background;
      // 6 s is long enough for its backoff to reach its 5 s cap)
      long downUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
      while (System.nanoTime() < downUntil) {
        long t1 = System.nanoTime();
        assertThatThrownBy(store::timeMillis).isInstanceOf(StoreUnavailableException.class);
        millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
        Thread.sleep(100);
      }
      System.out.println("failure latencies while down (ms): " + millis);
      assertThat(millis.get(0)).as("the first call waits at most for a pooled connection")
          .isLessThan(CONNECTION_TIMEOUT.toMillis() + 1500);
      assertThat(millis.subList(1, millis.size())).as("then every call fails at once")
          .allSatisfy(ms -> assertThat(ms).isLessThan(250));

      pg.start();

      long t0 = System.nanoTime();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> succeeds(store::timeMillis));
      long recoveryMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      System.out.println("first successful call " + recoveryMillis + " ms after the restart");
      assertThat(recoveryMillis).as("answers once the listener reconnected (backoff <= 300 ms here), without "
          + "waiting for HikariCP's backoff").isLessThan(2500);
      // committed data survived the crash (WAL replay); fencing still works
      assertThat(store.renewMember(pool, "m1", session, Duration.ofSeconds(60))).isTrue();
      assertThat(store.claim(pool, "u1", "m1", session)).hasValue(token);
      assertThat(store.publish(lease, "table", "g", Map.of("m1", "u1,u2"))).isEqualTo(2);
      assertThat(store.hash("table")).isEqualTo(Map.of("m1", "u1,u2"));

      // the subscription made before the crash hears new messages once the listener has re-LISTENed
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
        store.notify("chan", "after");
        return "after".equals(got.poll(100, TimeUnit.MILLISECONDS));
      });
      assertThat(store.isListening()).isTrue();
      BlockingQueue<String> fresh = new LinkedBlockingQueue<>();
      try (Subscription s2 = store.subscribe(Store.notifyChannel("table"), fresh::add)) {
        store.publish(lease, "table", "g", Map.of("m1", "u3"));
        assertThat(fresh.poll(10, TimeUnit.SECONDS)).isEqualTo("3");
      }
      sub.close();
    }
  }

  @Test
  void aStoreThatCannotConnectFailsAtOnceNamingTheUrlWithoutThePassword() throws Exception {
    int port = PgCluster.freePort(); // nothing listens there
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> PostgresStore.connect("postgresql://alice:s3cret-pw@127.0.0.1:" + port + "/db"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("postgresql://alice@127.0.0.1:" + port + "/db")
        .satisfies(e -> assertThat(messages(e)).doesNotContain("s3cret-pw"));
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(5000);

    assertThatThrownBy(() -> PostgresStore.connect("jdbc:postgresql://127.0.0.1:" + port
        + "/db?user=alice&password=s3cret-pw"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("jdbc:postgresql://127.0.0.1:" + port + "/db?user=alice")
        .satisfies(e -> assertThat(messages(e)).doesNotContain("s3cret-pw"));
  }

  @Test
  void aBusyPoolTimesOutAsUnavailableWithoutDeclaringTheServerDown() throws Exception {
    String schema = TestPostgres.randomSchema();
    PostgresStoreConfig cfg = PostgresStoreConfig.builder(TestPostgres.url()).schema(schema).maxPoolSize(1)
        .connectionTimeout(Duration.ofMillis(500)).build();
    ExecutorService exec = Executors.newSingleThreadExecutor();
    try (PostgresStore store = PostgresStore.connect(cfg); Connection raw = TestPostgres.raw()) {
      store.addToList("k", "a");
      raw.setAutoCommit(false);
      try (Statement st = raw.createStatement()) { // holds the key's row lock: addToList will wait for it
        st.execute("SELECT 1 FROM " + SchemaMigrator.quote(schema) + ".keys WHERE key = 'k' FOR UPDATE");
      }
      Future<Boolean> blocked = exec.submit(() -> store.addToList("k", "b")); // takes the only connection
      await().atMost(Duration.ofSeconds(10)).until(() -> lockWaiters(schema) > 0);
      assertThatThrownBy(store::timeMillis)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("no free connection");
      raw.rollback();
      assertThat(blocked.get(10, TimeUnit.SECONDS)).isTrue();
      long t0 = System.nanoTime();
      assertThat(store.timeMillis()).isPositive();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(400);
      assertThat(store.list("k")).containsExactly("b", "a");
    } finally {
      exec.shutdownNow();
      TestPostgres.dropSchema(schema);
    }
  }

  private static long lockWaiters(String schema) throws SQLException {
    try (Connection c = TestPostgres.raw(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            + "AND query LIKE '%" + schema + "%add_to_list%'")) {
      rs.next();
      return rs.getLong(1);
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
