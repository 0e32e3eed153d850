package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.MemberMeta;
import io.allot.store.Safety;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Stores;
import io.allot.testkit.PostgresServer;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The lost-state guard on throwaway servers of its own ({@link PostgresServer}, killed with SIGKILL and restarted;
 * a streaming {@link Standby} promoted): after a restart of a server whose settings allow losing commits, or a
 * failover, claims in a pool wait the guard (store time) and tokens stay larger than every token handed out before;
 * a restart of a durable server makes nobody wait. Also the connect-time durability check on those servers.
 */
class PostgresLostStateTest {
  private static final Duration GUARD = Duration.ofSeconds(2);
  private static final Duration TTL = Duration.ofSeconds(30);

  /** A store on {@code uri} with the guard and margin set by URI parameters, reconnecting quickly. */
  private static PostgresStore connect(String uri) {
    return PostgresStore.connect(PostgresStoreConfig.builder(uri + "?allot_guard=2s&allot_clock_margin=100ms")
        .connectionTimeout(Duration.ofSeconds(1))
        .reconnectDelay(Duration.ofMillis(20), Duration.ofMillis(300))
        .build());
  }

  @Test
  void afterARestartThatMayHaveLostCommitsClaimsWaitTheGuardAndTokensStayLarger() {
    try (PostgresServer pg = PostgresServer.builder().setting("fsync", "on").setting("synchronous_commit", "off")
        .start(); PostgresStore store = connect(pg.uri())) {
      Safety safety = store.safety();
      assertThat(safety.lostStateGuard()).isEqualTo(GUARD);
      assertThat(safety.clockMargin()).isEqualTo(Duration.ofMillis(100));
      assertThat(safety.lossPossible()).isTrue();
      assertThat(safety.findings()).singleElement().asString().startsWith("synchronous_commit=off:");

      long a = store.membership("p").register("a", MemberMeta.DEFAULT, TTL);
      long first = claimWhenGranted(store, "u0", "a", a); // a new pool on a server up for less than the guard
      pg.psql("CHECKPOINT"); // the pool and its guard are on disk; what follows may not be
      long last = first;
      for (int i = 1; i <= 20; i++) {
        last = Math.max(last, store.ownership("p").claim("u" + i, "a", a).orElseThrow());
      }

      pg.kill(); // commits of the last moments are lost with synchronous_commit=off
      pg.restart();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> answers(store));
      System.out.println("units of member a after the crash: " + store.ownership("p").owners().size() + " of 21");

      long restartedAt = store.clock().timeMillis();
      long b = store.membership("p").register("b", MemberMeta.DEFAULT, TTL);
      assertThat(b).as("a session after the crash").isGreaterThan(last);
      long[] grantedAt = new long[1];
      long token = claimWhenGranted(store, "v", "b", b, grantedAt);
      assertThat(grantedAt[0]).as("granted at store time, restarted at %d, guard %s", restartedAt, GUARD)
          .isGreaterThanOrEqualTo(restartedAt + GUARD.toMillis());
      assertThat(token).as("larger than every token handed out before the crash, lost ones included")
          .isGreaterThan(last);
    }
  }

  @Test
  void aRestartOfADurableServerDoesNotMakeClaimsWait() {
    try (PostgresServer pg = PostgresServer.builder().setting("fsync", "on").start();
        PostgresStore store = connect(pg.uri())) {
      assertThat(store.safety().lossPossible()).isFalse();
      assertThat(store.safety().findings()).isEmpty();
      long a = store.membership("p").register("a", MemberMeta.DEFAULT, TTL);
      long t1 = store.ownership("p").claim("u1", "a", a).orElseThrow(); // a new pool on a durable server: no wait

      pg.kill(); // nothing committed is lost: WAL replay
      pg.restart();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
          .until(() -> answers(store));

      long b = store.membership("p").register("b", MemberMeta.DEFAULT, TTL);
      assertThat(store.ownership("p").claim("u2", "b", b)).as("granted at once").isPresent();
      assertThat(store.ownership("p").claim("u1", "a", a)).as("the owner kept its unit").hasValue(t1);
      assertThat(store.ownership("p").claim("u1", "b", b)).as("and it is live").isEmpty();
    }
  }

  @Test
  void aStandbyIsRefusedAndAFailoverToItMakesClaimsWait() throws Exception {
    try (PostgresServer primary = PostgresServer.builder().setting("fsync", "on").start();
        Standby standby = Standby.of(primary)) {
      assertThatThrownBy(() -> Stores.open(standby.uri()).close())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("standby")
          .hasMessageContaining("pg_is_in_recovery()");

      long a;
      long last;
      try (PostgresStore store = connect(primary.uri())) {
        assertThat(store.safety().lossPossible()).isTrue();
        assertThat(store.safety().findings()).singleElement().asString()
            .contains("replicates asynchronously (pg_stat_replication.sync_state = async)");
        a = store.membership("p").register("a", MemberMeta.DEFAULT, TTL);
        last = store.ownership("p").claim("u1", "a", a).orElseThrow();
      }
      // the standby has replayed everything, then the primary dies and the standby takes over
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> primary.psql(
          "SELECT count(*) FROM pg_stat_replication WHERE replay_lsn = pg_current_wal_lsn()").trim().equals("1"));
      primary.kill();
      standby.promote();

      try (Store store = Stores.open(standby.uri() + "?allot_guard=2s")) {
        assertThat(store.ownership("p").owners()).as("replicated").containsOnlyKeys("u1");
        long promotedAt = store.clock().timeMillis();
        long b = store.membership("p").register("b", MemberMeta.DEFAULT, TTL);
        long[] grantedAt = new long[1];
        long token = claimWhenGranted(store, "u2", "b", b, grantedAt);
        assertThat(grantedAt[0]).as("granted at store time, promoted by %d, guard %s", promotedAt, GUARD)
            .isGreaterThanOrEqualTo(promotedAt + GUARD.toMillis());
        assertThat(token).isGreaterThan(last);
        assertThat(store.ownership("p").claim("u1", "a", a)).as("the owner's repeated claim").hasValue(last);
      }
    }
  }

  private static long claimWhenGranted(Store store, String unit, String member, long session) {
    return claimWhenGranted(store, unit, member, session, new long[1]);
  }

  /** Claims until granted; {@code grantedAt[0]} = the store time right after. */
  private static long claimWhenGranted(Store store, String unit, String member, long session, long[] grantedAt) {
    OptionalLong[] token = {OptionalLong.empty()};
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO).until(() -> {
      token[0] = store.ownership("p").claim(unit, member, session);
      grantedAt[0] = store.clock().timeMillis();
      return token[0].isPresent();
    });
    return token[0].getAsLong();
  }

  private static boolean answers(Store store) {
    try {
      store.clock().timeMillis();
      return true;
    } catch (StoreUnavailableException e) {
      return false;
    }
  }
}
