package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Lease;
import io.allot.store.MemberConflictException;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.StoreContractTest;
import io.allot.store.Stores;
import io.allot.store.Subscription;
import io.allot.store.Tables;
import io.allot.store.Topic;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract against the PostgreSQL of {@code TestServers.postgresUri()} in a random schema ({@link TestSchema})
 * dropped afterwards. Two
 * stores (two pools and two LISTEN connections, as two processes would have) exercise cross-client behaviour; one
 * plain JDBC connection checks the raw layout.
 */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
class PostgresStoreTest extends StoreContractTest {
  private static final TestSchema SCHEMA = TestSchema.random();
  private static PostgresStore store;
  private static PostgresStore peer;
  private static Connection raw;

  @BeforeAll
  static void connect() throws SQLException {
    store = SCHEMA.connect();
    peer = SCHEMA.connect();
    raw = TestSchema.raw();
  }

  @AfterAll
  static void disconnect() throws SQLException {
    if (store != null) {
      store.close();
      peer.close();
      raw.close();
    }
    SCHEMA.close();
  }

  @Override
  protected Store store() {
    return store;
  }

  @Override
  protected Store peer() {
    return peer;
  }

  private static List<List<Object>> rows(String sql, Object... args) throws SQLException {
    return rowsIn(SCHEMA, sql, args);
  }

  /** The rows of {@code sql} with {@code S.} standing for {@code schema}. */
  private static List<List<Object>> rowsIn(TestSchema schema, String sql, Object... args) throws SQLException {
    return rowsOn(raw, schema, sql, args);
  }

  /** The rows of {@code sql} with {@code S.} standing for {@code schema}, on connection {@code c}. */
  private static List<List<Object>> rowsOn(Connection c, TestSchema schema, String sql, Object... args)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.replace("S.", schema.quoted() + "."))) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        List<List<Object>> out = new ArrayList<>();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          List<Object> row = new ArrayList<>();
          for (int i = 1; i <= n; i++) {
            row.add(rs.getObject(i));
          }
          out.add(row);
        }
        return out;
      }
    }
  }

  private static void exec(String sql) throws SQLException {
    try (Statement st = raw.createStatement()) {
      st.execute(sql.replace("S.", SCHEMA.quoted() + "."));
    }
  }

  // ---------------------------------------------------------------- races only PostgreSQL can have

  /**
   * A renewal that qualified while the lease was live but commits after its old expiry (a slow WAL flush) must
   * still win over a claim made in between: the claim waits for it instead of reading the stale lease.
   */
  @Test
  void aClaimWaitsForTheOwnersRenewalInFlight() throws Exception {
    String pool = key("services");
    long s1 = store.membership(pool).register("m1", MemberMeta.of(1, 10), Duration.ofMillis(600));
    long token = store.ownership(pool).claim("u1", "m1", s1).orElseThrow();
    long s2 = peer.membership(pool).register("m2", MemberMeta.of(1, 10), Duration.ofSeconds(30));
    try (Connection renewal = TestSchema.raw()) {
      renewal.setAutoCommit(false);
      try (PreparedStatement ps = renewal.prepareStatement(("UPDATE S.members SET lease_until = clock_timestamp()"
          + " + interval '30 seconds' WHERE pool = ? AND id = 'm1' AND session = ? AND lease_until > clock_timestamp()")
          .replace("S.", SCHEMA.quoted() + "."))) {
        ps.setString(1, pool);
        ps.setLong(2, s1);
        assertThat(ps.executeUpdate()).as("the renewal qualified: the lease was live").isEqualTo(1);
      }
      // the old lease runs out, and its clock margin too, while the renewal is not committed yet (within the margin
      // the claim would be refused without waiting: also right, but then the renewal in flight is not tested)
      long until = store.membership(pool).members().get("m1").leaseUntilMillis();
      long margin = store.safety().clockMargin().toMillis();
      waiting().until(() -> store.clock().timeMillis() > until + margin);
      java.util.concurrent.CompletableFuture<java.util.OptionalLong> claim =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> peer.ownership(pool).claim("u1", "m2", s2));
      // the claim must wait for the renewal (if it returned now, it read the stale lease)
      org.awaitility.Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(30))
          .until(() -> !claim.isDone());
      renewal.commit();
      assertThat(claim.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("m1 renewed in time: refused").isEmpty();
      assertThat(store.ownership(pool).owners().get("u1").token()).isEqualTo(token);
    }
  }

  /** The sessions of m1 and m2 in a pool. */
  private record Sessions(long m1, long m2) {}

  /** m1 registers on the store (lease {@code m1Lease}) and claims {@code unit}; m2 registers on the peer (30 s). */
  private Sessions m1HoldsForM2(String pool, String unit, Duration m1Lease) {
    long s1 = store.membership(pool).register("m1", MemberMeta.of(1, 10), m1Lease);
    store.ownership(pool).claim(unit, "m1", s1).orElseThrow();
    return new Sessions(s1, peer.membership(pool).register("m2", MemberMeta.of(1, 10), Duration.ofSeconds(30)));
  }

  /**
   * A claim of a unit another live session holds is refused without the pool's row lock (and without locking the
   * unit's row, so the holder's release never waits for it): during a planned handoff the new owner asks early and
   * often. A batch with a free unit still waits for the lock and claims only that one.
   */
  @Test
  void aClaimOfAUnitHeldElsewhereIsRefusedWithoutThePoolLock() throws Exception {
    String pool = key("services");
    long s2 = m1HoldsForM2(pool, "held", Duration.ofSeconds(30)).m2();
    try (Connection locker = TestSchema.raw()) {
      locker.setAutoCommit(false);
      assertThat(rowsOn(locker, SCHEMA, "SELECT pool FROM S.pools WHERE pool = ? FOR UPDATE", pool)).hasSize(1);
      assertThat(peer.ownership(pool).claim("held", "m2", s2)).as("refused at once, the pool's row locked").isEmpty();
      assertThat(peer.ownership(pool).claimAll(List.of("held"), "m2", s2)).isEmpty();
      java.util.concurrent.CompletableFuture<Map<String, Long>> mixed = java.util.concurrent.CompletableFuture
          .supplyAsync(() -> peer.ownership(pool).claimAll(List.of("held", "free"), "m2", s2));
      org.awaitility.Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(30))
          .until(() -> !mixed.isDone());
      locker.commit();
      assertThat(mixed.get(10, TimeUnit.SECONDS)).as("only the free unit").containsOnlyKeys("free");
    }
    assertThat(store.ownership(pool).release("held", "m1", store.ownership(pool).owners().get("held").token()))
        .isTrue();
    assertThat(peer.ownership(pool).claim("held", "m2", s2)).as("claimable once released").isPresent();
  }

  /**
   * A claim that locked the owner's row (FOR SHARE) while the lease was live and then saw it expired takes the unit;
   * a renewal that came in between (its lease test passed while the lease was live, then it waited for the claim's
   * lock) must not revive the lease once the claim has committed: the old owner would run the unit alongside the
   * new one. Two connections: the claim in a transaction of its own, held open; the renewal from the store.
   */
  @Test
  void aRenewalWaitingForAClaimThatSawTheLeaseExpiredDoesNotReviveIt() throws Exception {
    String pool = key("services");
    Sessions held = m1HoldsForM2(pool, "u1", Duration.ofSeconds(3));
    long s1 = held.m1();
    long s2 = held.m2();
    long until = store.membership(pool).members().get("m1").leaseUntilMillis();
    try (Connection claim = TestSchema.raw()) {
      claim.setAutoCommit(false);
      List<List<Object>> locked = rowsOn(claim, SCHEMA, "SELECT id FROM S.members WHERE pool = ? AND id = 'm1' FOR SHARE",
          pool);
      assertThat(locked).as("the claim holds the owner's row").hasSize(1);
      java.util.concurrent.CompletableFuture<Boolean> renewal = java.util.concurrent.CompletableFuture.supplyAsync(
          () -> store.membership(pool).renew("m1", s1, Duration.ofSeconds(30)));
      waiting().until(() -> SCHEMA.lockWaiters() > 0);
      assertThat(store.clock().timeMillis()).as("the renewal came while the lease was live").isLessThan(until);

      long margin = store.safety().clockMargin().toMillis();
      waiting().until(() -> store.clock().timeMillis() > until + margin);
      List<List<Object>> token = rowsOn(claim, SCHEMA, "SELECT S.claim(?, 'u1', 'm2', ?, ?, ?)", pool, s2,
          store.safety().lostStateGuard().toMillis(), margin);
      assertThat(token.get(0).get(0)).as("the claim saw the lease expired and took the unit").isNotNull();
      assertThat(renewal).as("the renewal waits for the claim").isNotDone();
      claim.commit();

      assertThat(renewal.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).as("renewal after the claim").isFalse();
      assertThat(store.membership(pool).members().get("m1").liveAt(store.clock().timeMillis()))
          .as("the lease stays over").isFalse();
      assertThat(store.ownership(pool).owners().get("u1").member()).isEqualTo("m2");
    }
  }

  /**
   * With a clock margin of 3 s (URI parameter), an id whose lease ended less than the margin ago can be neither
   * removed as expired nor registered again, and its unit not claimed; the conflict says from when it can.
   */
  @Test
  void theClockMarginHoldsOffRemovalReRegistrationAndClaims() {
    String pool = key("services");
    try (Store wide = Stores.open(SCHEMA.uri() + "&allot_clock_margin=3s")) {
      assertThat(wide.safety().clockMargin()).isEqualTo(Duration.ofSeconds(3));
      long s1 = wide.membership(pool).register("m1", MemberMeta.of(1, 10), Duration.ofSeconds(30));
      long s2 = wide.membership(pool).register("m2", MemberMeta.of(1, 10), Duration.ofSeconds(30));
      wide.ownership(pool).claim("u", "m1", s1).orElseThrow();
      assertThat(wide.membership(pool).renew("m1", s1, Duration.ofMillis(1))).isTrue();
      long until = wide.membership(pool).members().get("m1").leaseUntilMillis();
      waiting().until(() -> wide.clock().timeMillis() > until);

      assertThat(wide.membership(pool).removeIfExpired("m1", s1)).as("expired, but not by the margin").isFalse();
      assertThat(wide.ownership(pool).claim("u", "m2", s2)).as("claim within the margin").isEmpty();
      assertThatThrownBy(() -> wide.membership(pool).register("m1", MemberMeta.of(1, 10), Duration.ofSeconds(30)))
          .isInstanceOfSatisfying(MemberConflictException.class, e -> {
            assertThat(e.pool()).isEqualTo(pool);
            assertThat(e.liveUntilMillis()).isEqualTo(until + 3000);
          });
      assertThat(wide.membership(pool).members().get("m1").session()).as("nothing changed").isEqualTo(s1);

      waiting().until(() -> wide.clock().timeMillis() >= until + 3000);
      assertThat(wide.ownership(pool).claim("u", "m2", s2)).isPresent();
      assertThat(wide.membership(pool).removeIfExpired("m1", s1)).isTrue();
      assertThat(wide.membership(pool).members()).containsOnlyKeys("m2");
    }
  }

  // ---------------------------------------------------------------- layout

  @Test
  void layoutKeepsListsHashesAndTheirOwners() throws SQLException {
    String services = key("sys-services");
    store.seedKeys().addToList(services, "10.0.0.1:8080");
    store.seedKeys().addToList(services, "10.0.0.2:8080");
    assertThat(rows("SELECT kind FROM S.keys WHERE key = ?", services)).containsExactly(List.of("list"));
    assertThat(rows("SELECT value FROM S.list_items WHERE key = ? ORDER BY pos", services))
        .containsExactly(List.of("10.0.0.2:8080"), List.of("10.0.0.1:8080"));

    String table = key("sys-matching-table");
    Lease lease = store.leadership().tryAcquire(Tables.leaseName(table, "g1"), "d1", Duration.ofSeconds(30))
        .orElseThrow();
    store.tables().publish(lease, table, "g1", Map.of("10.0.0.1:8080", "u1,u2"));
    assertThat(rows("SELECT kind FROM S.keys WHERE key = ?", table)).containsExactly(List.of("hash"));
    assertThat(rows("SELECT field, value, writer_group FROM S.hash_fields WHERE key = ?", table))
        .containsExactly(List.of("10.0.0.1:8080", "u1,u2", "g1"));
    assertThat(rows("SELECT epoch FROM S.epochs WHERE hash_key = ?", table)).containsExactly(List.of(1L));
    List<List<Object>> leaseRow = rows("SELECT holder, last_token, expires_at > clock_timestamp() + interval '20 s', "
        + "expires_at <= clock_timestamp() + interval '30 s' FROM S.leases WHERE name = ?", lease.name());
    assertThat(leaseRow).containsExactly(List.of("d1", lease.token(), true, true));

    store.leadership().release(lease);
    assertThat(rows("SELECT holder, last_token FROM S.leases WHERE name = ?", lease.name()))
        .as("a released lease keeps its last token").containsExactly(java.util.Arrays.asList(null, lease.token()));
  }

  @Test
  void membershipLayout() throws SQLException {
    String pool = key("sys-services");
    long before = store.clock().timeMillis();
    long session = store.membership(pool).register("10.0.0.2:8080", MemberMeta.of(3, 7), Duration.ofSeconds(30));
    long token = store.ownership(pool).claim("unit-1", "10.0.0.2:8080", session).orElseThrow();
    assertThat(rows("SELECT id, affinity, capacity, session FROM S.members WHERE pool = ?", pool))
        .containsExactly(List.of("10.0.0.2:8080", 3, 7, session));
    assertThat(rows("SELECT unit, member, session, token FROM S.ownership WHERE pool = ?", pool))
        .containsExactly(List.of("unit-1", "10.0.0.2:8080", session, token));
    assertThat(rows("SELECT last_counter FROM S.pools WHERE pool = ?", pool)).containsExactly(List.of(token));
    assertThat(session).as("seeded from the store clock in microseconds")
        .isBetween(before * 1000, before * 1000 + 60_000_000L);
  }

  @Test
  void firstTokenIsSeededFromTheStoreClockInMicroseconds() {
    long before = store.clock().timeMillis() * 1000;
    Lease lease = store.leadership().tryAcquire(key("leader"), "d1", Duration.ofSeconds(5)).orElseThrow();
    assertThat(lease.token()).isGreaterThan(before).isLessThan(before + 60_000_000L);
  }

  @Test
  void tokensKeepIncreasingAfterTheLeaseRowIsLost() throws SQLException {
    String name = key("leader");
    Lease first = store.leadership().tryAcquire(name, "d1", Duration.ofSeconds(5)).orElseThrow();
    store.leadership().release(first);
    exec("DELETE FROM S.leases WHERE name = '" + name + "'"); // e.g. a restore from an old backup
    Lease second = store.leadership().tryAcquire(name, "d1", Duration.ofSeconds(5)).orElseThrow();
    assertThat(second.token()).isGreaterThan(first.token());
  }

  /**
   * A publication sends only what changed since this client's previous one of the pool (same lease): a value
   * changed meanwhile by SQL that is not allot's stays as long as its own entry does not change, which shows it was
   * not sent again; the changed and the dropped fields are written. The pool's mark is the epoch of its last
   * publication; a new lease publishes in full again.
   */
  @Test
  void aPublicationSendsOnlyTheFieldsThatChanged() throws SQLException {
    String table = key("sys-matching-table");
    String name = Tables.leaseName(table, "g1");
    Lease lease = store.leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    store.tables().publish(lease, table, "g1", Map.of("m1", "u1", "m2", "u2", "m3", "u3"));
    exec("UPDATE S.hash_fields SET value = 'tampered' WHERE key = '" + table + "' AND field = 'm1'");
    assertThat(store.tables().publish(lease, table, "g1", Map.of("m1", "u1", "m2", "u2,u4"))).isEqualTo(2);
    assertThat(store.seedKeys().hash(table)).isEqualTo(Map.of("m1", "tampered", "m2", "u2,u4"));
    assertThat(rows("SELECT grp, epoch FROM S.publish_marks WHERE hash_key = ?", table))
        .containsExactly(List.of("g1", 2L));
    store.leadership().release(lease);
    Lease next = store.leadership().tryAcquire(name, "d1", Duration.ofSeconds(30)).orElseThrow();
    store.tables().publish(next, table, "g1", Map.of("m1", "u1", "m2", "u2,u4"));
    assertThat(store.seedKeys().hash(table)).isEqualTo(Map.of("m1", "u1", "m2", "u2,u4"));
  }

  @Test
  void fieldsWrittenByOthersAreLeftAlone() throws SQLException {
    String table = key("table");
    Lease lease = store.leadership().tryAcquire(Tables.leaseName(table, "g1"), "d1", Duration.ofSeconds(30))
        .orElseThrow();
    store.tables().publish(lease, table, "g1", Map.of("m1", "u1"));
    exec("INSERT INTO S.hash_fields (key, field, value) VALUES ('" + table + "', 'legacy:1', 'u9')");
    store.tables().publish(lease, table, "g1", Map.of());
    assertThat(store.seedKeys().hash(table)).isEqualTo(Map.of("legacy:1", "u9"));
  }

  @Test
  void memberAttributesAreKeptAsTheirEncodedText() throws SQLException {
    String pool = key("sys-services");
    MemberMeta meta = MemberMeta.of(2, 5).with(MemberMeta.VERSION, "1.2").with("label.team", "a b&c=d");
    long session = store.membership(pool).register("m1", meta, Duration.ofSeconds(30));
    assertThat(rows("SELECT attributes FROM S.members WHERE pool = ?", pool))
        .containsExactly(List.of("label.team=a+b%26c%3Dd&version=1.2"));
    assertThat(store.membership(pool).update("m1", session, MemberMeta.of(2, 5))).isTrue();
    assertThat(rows("SELECT attributes FROM S.members WHERE pool = ?", pool)).containsExactly(List.of(""));
  }

  @Test
  void seedListWritesAnnounceOnlyWhatChanged() throws Exception {
    String k = key("units");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (Subscription ignored = peer.notifications().subscribe(Topic.key(k), got::add)) {
      assertThat(store.seedKeys().addToList(k, "a")).isTrue();
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("lpush");
      assertThat(store.seedKeys().addToList(k, "a")).as("already there").isFalse();
      assertThat(store.seedKeys().removeFromList(k, "b")).as("not there").isFalse();
      long session = store.membership(k).register("m1", MemberMeta.DEFAULT, Duration.ofSeconds(30));
      store.membership(k).deregister("m1", session); // announced on the members topic only
      assertThat(store.seedKeys().removeFromList(k, "a")).isTrue();
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).as("nothing announced in between")
          .isEqualTo("lrem");
      store.seedKeys().replaceList(k, List.of());
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("replace");
    }
  }

  // ---------------------------------------------------------------- schema

  @Test
  void schemaIsAtTheLatestVersionAndASecondConnectChangesNothing() throws SQLException {
    assertThat(rows("SELECT version FROM S.allot_schema_version ORDER BY version")).containsExactlyElementsOf(
        SchemaMigrator.MIGRATIONS.stream().map(m -> List.<Object>of(m.version())).toList());
    assertThat(rows("SELECT functions_sha256 FROM S.allot_schema_version WHERE version = ?", SchemaMigrator.LATEST))
        .containsExactly(List.of(SchemaMigrator.FUNCTIONS_SHA256));
    String functions = "SELECT p.proname, p.xmin::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        + "WHERE n.nspname = ? ORDER BY 1";
    List<List<Object>> before = rows(functions, SCHEMA.name());
    assertThat(before).hasSizeGreaterThan(10);
    try (PostgresStore again = SCHEMA.connect()) {
      assertThat(again.clock().timeMillis()).isPositive();
    }
    assertThat(rows("SELECT count(*) FROM S.allot_schema_version"))
        .containsExactly(List.of((long) SchemaMigrator.LATEST));
    assertThat(rows(functions, SCHEMA.name())).as("functions not applied again").isEqualTo(before);
  }

  @Test
  void functionsAreAppliedAgainWhenTheirHashDiffers() throws SQLException {
    try (TestSchema fresh = TestSchema.random(); Connection c = TestSchema.raw(); Statement st = c.createStatement()) {
      fresh.connect().close();
      st.execute("DROP FUNCTION " + fresh.quoted() + ".claim_all(text, text[], text, bigint, bigint, bigint)");
      try (PostgresStore same = fresh.connect()) {
        assertThatThrownBy(() -> same.ownership("p").claimAll(List.of("u"), "m", 1))
            .as("same hash: functions.sql not applied again").isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("claim_all");
      }
      st.execute("UPDATE " + fresh.quoted() + ".allot_schema_version SET functions_sha256 = 'stale'");
      try (PostgresStore again = fresh.connect()) {
        long session = again.membership("p").register("m", MemberMeta.DEFAULT, Duration.ofSeconds(30));
        assertThat(again.ownership("p").claimAll(List.of("u"), "m", session)).containsOnlyKeys("u");
      }
      assertThat(rowsIn(fresh, "SELECT functions_sha256 FROM S.allot_schema_version WHERE version = ?",
          SchemaMigrator.LATEST)).containsExactly(List.of(SchemaMigrator.FUNCTIONS_SHA256));
    }
  }

  @Test
  void storesOpenFindsThisStoreByUri() {
    try (TestSchema fresh = TestSchema.random()) {
      try (Store opened = Stores.open(fresh.uri())) {
        assertThat(opened).isInstanceOf(PostgresStore.class);
        assertThat(((PostgresStore) opened).schema()).isEqualTo(fresh.name());
        assertThat(opened.describe()).contains(fresh.name());
        opened.seedKeys().addToList("k", "v");
      }
      try (Store opened = Stores.open(fresh.uri().replaceFirst("^postgresql://", "postgres://"))) {
        assertThat(opened.seedKeys().list("k")).containsExactly("v");
      }
    }
  }

  @Test
  void processesStartingAtOnceMigrateOnce() throws Exception {
    try (TestSchema fresh = TestSchema.random()) {
      List<PostgresStore> stores = race(4, i -> fresh::connect);
      try {
        Lease lease = stores.get(0).leadership().tryAcquire("l", "d", Duration.ofSeconds(5)).orElseThrow();
        assertThat(stores.get(3).leadership().current("l")).contains(lease);
      } finally {
        stores.forEach(PostgresStore::close);
      }
      assertThat(rowsIn(fresh, "SELECT count(*), max(version) FROM S.allot_schema_version"))
          .as("each migration applied once")
          .containsExactly(List.of((long) SchemaMigrator.MIGRATIONS.size(), SchemaMigrator.LATEST));
    }
  }

  @Test
  void aNewerSchemaIsRefused() throws SQLException {
    try (TestSchema fresh = TestSchema.random()) {
      fresh.connect().close();
      try (Statement st = raw.createStatement()) {
        st.execute("INSERT INTO " + fresh.quoted() + ".allot_schema_version (version, description) "
            + "VALUES (" + (SchemaMigrator.LATEST + 1) + ", 'from the future')");
      }
      assertThatThrownBy(fresh::connect)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("newer than this allot understands");
    }
  }

  @Test
  void schemasAreIsolatedIncludingNotifications() throws Exception {
    try (TestSchema other = TestSchema.random(); PostgresStore elsewhere = other.connect()) {
      String k = key("services");
      store.seedKeys().addToList(k, "a");
      assertThat(elsewhere.seedKeys().list(k)).isEmpty();
      BlockingQueue<String> here = new LinkedBlockingQueue<>();
      BlockingQueue<String> there = new LinkedBlockingQueue<>();
      try (Subscription a = peer.notifications().subscribe(Topic.named(key("chan")), here::add);
          Subscription b = elsewhere.notifications().subscribe(Topic.named(key("chan")), there::add)) {
        elsewhere.notifications().publish(Topic.named(key("chan")), "other schema");
        store.notifications().publish(Topic.named(key("chan")), "this schema");
        assertThat(here.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("this schema");
        assertThat(there.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("other schema");
        assertThat(here.poll(200, TimeUnit.MILLISECONDS)).isNull();
      }
    }
  }

  // ---------------------------------------------------------------- PostgreSQL specifics

  @Test
  void channelNamesOfAnyLengthWork() throws Exception {
    String channel = key("long-").repeat(40) + "-канал-📣";
    assertThat(channel.length()).isGreaterThan(63);
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    BlockingQueue<String> prefixOnly = new LinkedBlockingQueue<>();
    try (Subscription a = peer.notifications().subscribe(Topic.named(channel), got::add);
        Subscription b = peer.notifications().subscribe(Topic.named(channel.substring(0, 63)), prefixOnly::add)) {
      store.notifications().publish(Topic.named(channel), "m");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m");
      assertThat(prefixOnly.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }
  }

  @Test
  void payloadsTooLongForNotifyAreRefused() {
    assertThatThrownBy(() -> store.notifications().publish(Topic.named(key("chan")), "x".repeat(8000)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8000");
    store.notifications().publish(Topic.named(key("chan")), "x".repeat(7000));
  }

  @Test
  void nulCharactersAreRefusedAsBadInput() {
    assertThatThrownBy(() -> store.seedKeys().addToList(key("l"), "a\u0000b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.seedKeys().list(key("l"))).isEmpty();
  }

  @Test
  void payloadCodec() {
    String p = PgChannels.payloadPrefix("a:b") + "msg:1";
    assertThat(PgChannels.decodePayload(p)).isEqualTo(new PgChannels.Decoded("a:b", "msg:1"));
    assertThat(PgChannels.decodePayload(PgChannels.payloadPrefix(""))).isEqualTo(new PgChannels.Decoded("", ""));
    assertThat(PgChannels.decodePayload("garbage")).isNull();
    assertThat(PgChannels.decodePayload("99:short")).isNull();
    PgChannels here = new PgChannels(SCHEMA.name());
    assertThat(here.pgChannel("x")).matches("allot_[0-9a-f]{32}").isEqualTo(new PgChannels(SCHEMA.name()).pgChannel("x"))
        .isNotEqualTo(here.pgChannel("y")).isNotEqualTo(new PgChannels("other").pgChannel("x"));
    assertThat(here.note(Topic.key("k"), "m")).isEqualTo(new PgChannels.Note(here.pgChannel("allot:changes:k"),
        "15:allot:changes:km"));
  }

  @Test
  void publishesOfManyGroupsInterleaveSafely() throws Exception {
    String h = key("table");
    int pools = 6;
    List<Lease> leases = new ArrayList<>();
    for (int g = 0; g < pools; g++) {
      leases.add(store.leadership().tryAcquire(Tables.leaseName(h, "g" + g), "d" + g, Duration.ofSeconds(30))
          .orElseThrow());
    }
    List<Long> epochs = race(pools * 4, i -> () -> {
      int g = i % pools;
      Map<String, String> fields = new LinkedHashMap<>();
      fields.put("m" + g, "u" + i);
      return (i % 2 == 0 ? store : peer).tables().publish(leases.get(g), h, "g" + g, fields);
    });
    assertThat(epochs).doesNotHaveDuplicates().hasSize(pools * 4);
    assertThat(store.tables().epoch(h)).isEqualTo(pools * 4L);
    assertThat(store.seedKeys().hash(h)).hasSize(pools);
  }
}
