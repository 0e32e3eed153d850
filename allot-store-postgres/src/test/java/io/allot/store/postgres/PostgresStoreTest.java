package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.StoreContractTest;
import io.allot.store.Subscription;
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
 * The contract against a real PostgreSQL (see {@link TestPostgres}) in a random schema dropped afterwards. Two
 * stores (two pools and two LISTEN connections, as two processes would have) exercise cross-client behaviour; one
 * plain JDBC connection checks the raw layout.
 */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
class PostgresStoreTest extends StoreContractTest {
  private static final String SCHEMA = TestPostgres.randomSchema();
  private static PostgresStore store;
  private static PostgresStore peer;
  private static Connection raw;

  @BeforeAll
  static void connect() throws SQLException {
    String url = TestPostgres.url();
    store = PostgresStore.connect(url, SCHEMA);
    peer = PostgresStore.connect(url, SCHEMA);
    raw = TestPostgres.raw();
  }

  @AfterAll
  static void disconnect() throws SQLException {
    if (store != null) {
      store.close();
      peer.close();
      raw.close();
    }
    TestPostgres.dropSchema(SCHEMA);
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
    try (PreparedStatement ps = raw.prepareStatement(sql.replace("S.", SchemaMigrator.quote(SCHEMA) + "."))) {
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
      st.execute(sql.replace("S.", SchemaMigrator.quote(SCHEMA) + "."));
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
    long s1 = store.register(pool, "m1", 1, 10, Duration.ofMillis(600));
    long token = store.claim(pool, "u1", "m1", s1).orElseThrow();
    long s2 = peer.register(pool, "m2", 1, 10, Duration.ofSeconds(30));
    try (Connection renewal = TestPostgres.raw()) {
      renewal.setAutoCommit(false);
      try (PreparedStatement ps = renewal.prepareStatement(("UPDATE S.members SET lease_until = clock_timestamp()"
          + " + interval '30 seconds' WHERE pool = ? AND id = 'm1' AND session = ? AND lease_until > clock_timestamp()")
          .replace("S.", SchemaMigrator.quote(SCHEMA) + "."))) {
        ps.setString(1, pool);
        ps.setLong(2, s1);
        assertThat(ps.executeUpdate()).as("the renewal qualified: the lease was live").isEqualTo(1);
      }
      // the old lease runs out while the renewal is not committed yet
      waiting().until(() -> !store.members(pool).get("m1").liveAt(store.timeMillis()));
      java.util.concurrent.CompletableFuture<java.util.OptionalLong> claim =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> peer.claim(pool, "u1", "m2", s2));
      // the claim must wait for the renewal (if it returned now, it read the stale lease)
      org.awaitility.Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
          .until(() -> !claim.isDone());
      renewal.commit();
      assertThat(claim.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("m1 renewed in time: refused").isEmpty();
      assertThat(store.owners(pool).get("u1").token()).isEqualTo(token);
    }
  }

  // ---------------------------------------------------------------- layout

  @Test
  void layoutKeepsListsHashesAndTheirOwners() throws SQLException {
    String services = key("sys-services");
    store.addToList(services, "10.0.0.1:8080");
    store.addToList(services, "10.0.0.2:8080");
    assertThat(rows("SELECT kind FROM S.keys WHERE key = ?", services)).containsExactly(List.of("list"));
    assertThat(rows("SELECT value FROM S.list_items WHERE key = ? ORDER BY pos", services))
        .containsExactly(List.of("10.0.0.2:8080"), List.of("10.0.0.1:8080"));

    String table = key("sys-matching-table");
    Lease lease = store.tryAcquire(Store.tableLeaseName(table, "g1"), "d1", Duration.ofSeconds(30)).orElseThrow();
    store.publish(lease, table, "g1", Map.of("10.0.0.1:8080", "u1,u2"));
    assertThat(rows("SELECT kind FROM S.keys WHERE key = ?", table)).containsExactly(List.of("hash"));
    assertThat(rows("SELECT field, value, writer_group FROM S.hash_fields WHERE key = ?", table))
        .containsExactly(List.of("10.0.0.1:8080", "u1,u2", "g1"));
    assertThat(rows("SELECT epoch FROM S.epochs WHERE hash_key = ?", table)).containsExactly(List.of(1L));
    List<List<Object>> leaseRow = rows("SELECT holder, last_token, expires_at > clock_timestamp() + interval '20 s', "
        + "expires_at <= clock_timestamp() + interval '30 s' FROM S.leases WHERE name = ?", lease.name());
    assertThat(leaseRow).containsExactly(List.of("d1", lease.token(), true, true));

    store.release(lease);
    assertThat(rows("SELECT holder, last_token FROM S.leases WHERE name = ?", lease.name()))
        .as("a released lease keeps its last token").containsExactly(java.util.Arrays.asList(null, lease.token()));
  }

  @Test
  void membershipLayout() throws SQLException {
    String pool = key("sys-services");
    long before = store.timeMillis();
    long session = store.register(pool, "10.0.0.2:8080", 3, 7, Duration.ofSeconds(30));
    long token = store.claim(pool, "unit-1", "10.0.0.2:8080", session).orElseThrow();
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
    long before = store.timeMillis() * 1000;
    Lease lease = store.tryAcquire(key("leader"), "d1", Duration.ofSeconds(5)).orElseThrow();
    assertThat(lease.token()).isGreaterThan(before).isLessThan(before + 60_000_000L);
  }

  @Test
  void tokensKeepIncreasingAfterTheLeaseRowIsLost() throws SQLException {
    String name = key("leader");
    Lease first = store.tryAcquire(name, "d1", Duration.ofSeconds(5)).orElseThrow();
    store.release(first);
    exec("DELETE FROM S.leases WHERE name = '" + name + "'"); // e.g. a restore from an old backup
    Lease second = store.tryAcquire(name, "d1", Duration.ofSeconds(5)).orElseThrow();
    assertThat(second.token()).isGreaterThan(first.token());
  }

  @Test
  void fieldsWrittenByOthersAreLeftAlone() throws SQLException {
    String table = key("table");
    Lease lease = store.tryAcquire(Store.tableLeaseName(table, "g1"), "d1", Duration.ofSeconds(30)).orElseThrow();
    store.publish(lease, table, "g1", Map.of("m1", "u1"));
    exec("INSERT INTO S.hash_fields (key, field, value) VALUES ('" + table + "', 'legacy:1', 'u9')");
    store.publish(lease, table, "g1", Map.of());
    assertThat(store.hash(table)).isEqualTo(Map.of("legacy:1", "u9"));
  }

  // ---------------------------------------------------------------- schema

  @Test
  void schemaIsAtTheLatestVersionAndASecondConnectChangesNothing() throws SQLException {
    assertThat(rows("SELECT version FROM S.allot_schema_version ORDER BY version")).containsExactlyElementsOf(
        SchemaMigrator.MIGRATIONS.stream().map(m -> List.<Object>of(m.version())).toList());
    try (PostgresStore again = PostgresStore.connect(TestPostgres.url(), SCHEMA)) {
      assertThat(again.timeMillis()).isPositive();
    }
    assertThat(rows("SELECT count(*) FROM S.allot_schema_version")).containsExactly(List.of((long) SchemaMigrator.LATEST));
  }

  @Test
  void processesStartingAtOnceMigrateOnce() throws Exception {
    String fresh = TestPostgres.randomSchema();
    try {
      List<PostgresStore> stores = race(4, i -> () -> PostgresStore.connect(TestPostgres.url(), fresh));
      try {
        Lease lease = stores.get(0).tryAcquire("l", "d", Duration.ofSeconds(5)).orElseThrow();
        assertThat(stores.get(3).currentLeader("l")).contains(lease);
      } finally {
        stores.forEach(PostgresStore::close);
      }
      try (Connection c = TestPostgres.raw(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*), max(version) FROM " + SchemaMigrator.quote(fresh)
              + ".allot_schema_version")) {
        rs.next();
        assertThat(rs.getLong(1)).as("each migration applied once").isEqualTo(SchemaMigrator.MIGRATIONS.size());
        assertThat(rs.getInt(2)).isEqualTo(SchemaMigrator.LATEST);
      }
    } finally {
      TestPostgres.dropSchema(fresh);
    }
  }

  @Test
  void aNewerSchemaIsRefused() throws SQLException {
    String fresh = TestPostgres.randomSchema();
    try {
      PostgresStore.connect(TestPostgres.url(), fresh).close();
      try (Connection c = TestPostgres.raw(); Statement st = c.createStatement()) {
        st.execute("INSERT INTO " + SchemaMigrator.quote(fresh) + ".allot_schema_version (version, description) "
            + "VALUES (" + (SchemaMigrator.LATEST + 1) + ", 'from the future')");
      }
      assertThatThrownBy(() -> PostgresStore.connect(TestPostgres.url(), fresh))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("newer than this allot understands");
    } finally {
      TestPostgres.dropSchema(fresh);
    }
  }

  @Test
  void schemasAreIsolatedIncludingNotifications() throws Exception {
    String other = TestPostgres.randomSchema();
    try (PostgresStore elsewhere = PostgresStore.connect(TestPostgres.url(), other)) {
      String k = key("services");
      store.addToList(k, "a");
      assertThat(elsewhere.list(k)).isEmpty();
      BlockingQueue<String> here = new LinkedBlockingQueue<>();
      BlockingQueue<String> there = new LinkedBlockingQueue<>();
      try (Subscription a = peer.subscribe(key("chan"), here::add);
          Subscription b = elsewhere.subscribe(key("chan"), there::add)) {
        elsewhere.notify(key("chan"), "other schema");
        store.notify(key("chan"), "this schema");
        assertThat(here.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("this schema");
        assertThat(there.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("other schema");
        assertThat(here.poll(200, TimeUnit.MILLISECONDS)).isNull();
      }
    } finally {
      TestPostgres.dropSchema(other);
    }
  }

  // ---------------------------------------------------------------- PostgreSQL specifics

  @Test
  void channelNamesOfAnyLengthWork() throws Exception {
    String channel = key("long-").repeat(40) + "-канал-📣";
    assertThat(channel.length()).isGreaterThan(63);
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    BlockingQueue<String> prefixOnly = new LinkedBlockingQueue<>();
    try (Subscription a = peer.subscribe(channel, got::add);
        Subscription b = peer.subscribe(channel.substring(0, 63), prefixOnly::add)) {
      store.notify(channel, "m");
      assertThat(got.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("m");
      assertThat(prefixOnly.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }
  }

  @Test
  void payloadsTooLongForNotifyAreRefused() {
    assertThatThrownBy(() -> store.notify(key("chan"), "x".repeat(8000)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8000");
    store.notify(key("chan"), "x".repeat(7000));
  }

  @Test
  void nulCharactersAreRefusedAsBadInput() {
    assertThatThrownBy(() -> store.addToList(key("l"), "a\u0000b")).isInstanceOf(IllegalArgumentException.class);
    assertThat(store.list(key("l"))).isEmpty();
  }

  @Test
  void payloadCodec() {
    String p = PostgresStore.payloadPrefix("a:b") + "msg:1";
    assertThat(PostgresStore.decodePayload(p)).containsExactly("a:b", "msg:1");
    assertThat(PostgresStore.decodePayload(PostgresStore.payloadPrefix("") + "")).containsExactly("", "");
    assertThat(PostgresStore.decodePayload("garbage")).isNull();
    assertThat(PostgresStore.decodePayload("99:short")).isNull();
    assertThat(store.pgChannel("x")).matches("allot_[0-9a-f]{32}").isEqualTo(peer.pgChannel("x"))
        .isNotEqualTo(store.pgChannel("y"));
  }

  @Test
  void publishesOfManyGroupsInterleaveSafely() throws Exception {
    String h = key("table");
    int groups = 6;
    List<Lease> leases = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      leases.add(store.tryAcquire(Store.tableLeaseName(h, "g" + g), "d" + g, Duration.ofSeconds(30)).orElseThrow());
    }
    List<Long> epochs = race(groups * 4, i -> () -> {
      int g = i % groups;
      Map<String, String> fields = new LinkedHashMap<>();
      fields.put("m" + g, "u" + i);
      return (i % 2 == 0 ? store : peer).publish(leases.get(g), h, "g" + g, fields);
    });
    assertThat(epochs).doesNotHaveDuplicates().hasSize(groups * 4);
    assertThat(store.epoch(h)).isEqualTo(groups * 4L);
    assertThat(store.hash(h)).hasSize(groups);
  }
}
