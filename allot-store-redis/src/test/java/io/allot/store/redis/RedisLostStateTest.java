package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Stores;
import io.allot.testkit.RedisServer;
import io.allot.testkit.TestServers;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The lost-state guard: after any sign that Redis lost state (a restart without persistence, a restart that kept
 * its data but is another run, a young server, a pool counter gone behind the store's back), claims in the pool wait
 * the guard, measured in store time, and tokens stay above every token issued before. A repeated claim by a unit's
 * current owner is never refused. Each test but the last breaks its own throwaway {@link RedisServer}.
 */
class RedisLostStateTest {
  private static final long GUARD_MS = 2000;
  private static final Duration TTL = Duration.ofSeconds(30);
  /** Enough for a claim to be granted once the guard is over, on a loaded machine. */
  private static final Duration PATIENCE = Duration.ofMillis(GUARD_MS).plusSeconds(15);

  private static Store open(String uri, long guardMillis) {
    return Stores.open(uri + (uri.contains("?") ? "&" : "?") + "guard=" + guardMillis + "ms");
  }

  /** A grant: the token, and the store time read right after the granting call (it was granted by then). */
  private record Grant(long token, long grantedBy) {}

  /** Claims {@code unit} until granted (riding out a reconnect), polling every 20 ms. */
  private static Grant claimUntilGranted(Store store, String pool, String unit, String member, long session) {
    long[] got = new long[2];
    await().atMost(PATIENCE).pollInterval(Duration.ofMillis(20)).ignoreException(StoreUnavailableException.class)
        .until(() -> {
          OptionalLong token = store.ownership(pool).claim(unit, member, session);
          got[1] = store.clock().timeMillis();
          token.ifPresent(t -> got[0] = t);
          return token.isPresent();
        });
    return new Grant(got[0], got[1]);
  }

  /** The store time once the store answers again after a restart: the restart happened before it. */
  private static long storeTimeOnceBack(Store store) {
    return await().atMost(PATIENCE).pollInterval(Duration.ofMillis(20))
        .ignoreException(StoreUnavailableException.class).until(() -> store.clock().timeMillis(), t -> t > 0);
  }

  @Test
  void afterARestartThatLostTheDataClaimsWaitTheGuardAndTokensStayAbove() {
    try (RedisServer server = RedisServer.start(); Store store = open(server.uri(), GUARD_MS)) {
      String pool = "app:services";
      long a = store.membership(pool).register("a", MemberMeta.DEFAULT, TTL);
      long tokenA = claimUntilGranted(store, pool, "u", "a", a).token(); // the young server may make it wait once

      server.restart(); // SIGKILL, same port, no persistence: every record gone, a holder may still trust its lease
      long t0 = storeTimeOnceBack(store);
      assertThat(store.membership(pool).members()).as("the data is gone").isEmpty();
      long b = store.membership(pool).register("b", MemberMeta.DEFAULT, TTL);
      assertThat(store.ownership(pool).claim("u", "b", b)).as("right after the restart").isEmpty();

      Grant g = claimUntilGranted(store, pool, "u", "b", b);
      assertThat(g.grantedBy()).as("granted by store time %d, restarted before %d", g.grantedBy(), t0)
          .isGreaterThanOrEqualTo(t0 + GUARD_MS);
      assertThat(g.token()).isGreaterThan(tokenA);
      assertThat(b).isGreaterThan(tokenA);
    }
  }

  @Test
  void afterARestartThatKeptTheDataTheRunIdChangedAndClaimsWaitToo() {
    try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("everysec").start();
        Store store = open(server.uri(), GUARD_MS)) {
      String pool = "services";
      long a = store.membership(pool).register("a", MemberMeta.DEFAULT, TTL);
      long tokenA = claimUntilGranted(store, pool, "u1", "a", a).token();
      String runIdBefore = RedisDurability.parseInfo(server.command("INFO", "server")).get("run_id");

      server.restart(); // SIGKILL; the append-only file keeps what was acknowledged (written before the reply)
      long t0 = storeTimeOnceBack(store);
      assertThat(RedisDurability.parseInfo(server.command("INFO", "server")).get("run_id")).isNotEqualTo(runIdBefore);
      assertThat(store.membership(pool).members()).as("the data is kept").containsOnlyKeys("a");
      assertThat(store.ownership(pool).claim("u1", "a", a)).as("a repeated claim by the owner").hasValue(tokenA);
      long b = store.membership(pool).register("b", MemberMeta.DEFAULT, TTL);
      assertThat(store.ownership(pool).claim("u2", "b", b)).as("right after the restart").isEmpty();

      Grant g = claimUntilGranted(store, pool, "u2", "b", b);
      assertThat(g.grantedBy()).isGreaterThanOrEqualTo(t0 + GUARD_MS);
      assertThat(g.token()).isGreaterThan(tokenA);
      assertThat(store.ownership(pool).claim("u3", "a", a)).as("the guard is over for every member").isPresent();
    }
  }

  @Test
  void onAServerYoungerThanTheGuardTheFirstClaimsOfANewPoolWait() {
    long guard = 5000; // far above the time from start to the first claim, even on a loaded machine
    try (RedisServer server = RedisServer.start(); Store store = open(server.uri(), guard)) {
      long uptimeMillis = 1000 * Long.parseLong(RedisDurability.parseInfo(server.command("INFO", "server"))
          .get("uptime_in_seconds"));
      long t0 = store.clock().timeMillis();
      assertThat(uptimeMillis).as("the case tested").isLessThan(guard);
      long a = store.membership("services").register("a", MemberMeta.DEFAULT, TTL);
      assertThat(store.ownership("services").claim("u", "a", a)).isEmpty();
      Grant g = await().atMost(Duration.ofMillis(guard).plusSeconds(15)).pollInterval(Duration.ofMillis(50))
          .until(() -> {
            OptionalLong token = store.ownership("services").claim("u", "a", a);
            return new Grant(token.orElse(-1), store.clock().timeMillis());
          }, grant -> grant.token() > 0);
      assertThat(g.grantedBy()).isGreaterThanOrEqualTo(t0 + guard);
    }
  }

  @Test
  void onANodePromotedFromAReplicaTheFirstClaimsOfANewPoolWait() {
    long guard = 1000;
    try (RedisServer master = RedisServer.start();
        RedisServer replica = RedisServer.builder().args("--replicaof", "127.0.0.1", Integer.toString(master.port()))
            .start()) {
      await().atMost(PATIENCE).until(() -> replica.command("INFO", "replication").contains("master_link_status:up"));
      replica.command("REPLICAOF", "NO", "ONE"); // a failover: the replica becomes a master
      assertThat(RedisDurability.parseInfo(replica.command("INFO", "replication")).get("master_replid2"))
          .as("the case tested").doesNotMatch("0+");
      await().atMost(PATIENCE).until(() -> 1000 * Long.parseLong(RedisDurability.parseInfo(
          replica.command("INFO", "server")).get("uptime_in_seconds")) >= guard); // not young: promoted is the reason
      try (Store store = open(replica.uri(), guard)) {
        long t0 = store.clock().timeMillis();
        long a = store.membership("services").register("a", MemberMeta.DEFAULT, TTL);
        assertThat(store.ownership("services").claim("u", "a", a)).isEmpty();
        assertThat(claimUntilGranted(store, "services", "u", "a", a).grantedBy()).isGreaterThanOrEqualTo(t0 + guard);
      }
    }
  }

  @Test
  void aPoolCounterDeletedBehindTheStoresBackMakesClaimsWaitAndTokensStayAbove() {
    String uri = TestServers.redisUri();
    try (Store store = open(uri, GUARD_MS); RawRedis raw = RawRedis.connect(uri)) {
      String pool = "t" + UUID.randomUUID().toString().substring(0, 8) + ":services";
      try {
        long a = store.membership(pool).register("a", MemberMeta.DEFAULT, TTL);
        long tokenA = claimUntilGranted(store, pool, "u1", "a", a).token();

        raw.commands().del(RedisKeys.counter(pool)); // eviction, or a partial loss
        long t0 = store.clock().timeMillis();
        assertThat(store.ownership(pool).claim("u1", "a", a)).as("a repeated claim by the owner").hasValue(tokenA);
        long b = store.membership(pool).register("b", MemberMeta.DEFAULT, TTL);
        assertThat(b).isGreaterThan(tokenA);
        assertThat(store.ownership(pool).claim("u2", "b", b)).as("right after the loss").isEmpty();

        Grant g = claimUntilGranted(store, pool, "u2", "b", b);
        assertThat(g.grantedBy()).isGreaterThanOrEqualTo(t0 + GUARD_MS);
        assertThat(g.token()).isGreaterThan(tokenA);
      } finally {
        raw.deleteKeysContaining(pool);
      }
    }
  }
}
