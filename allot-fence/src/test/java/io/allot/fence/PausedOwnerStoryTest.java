package io.allot.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Lease;
import io.allot.store.Tables;
import io.allot.store.memory.MemoryStore;
import io.allot.testkit.FaultyStore;
import io.allot.testkit.TestServers;
import io.allot.worker.Divider;
import io.allot.worker.StopReason;
import io.allot.worker.UnitContext;
import io.allot.worker.UnitHandler;
import io.allot.worker.UnitRunner;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The story fencing exists for, driven by the real worker SDK: owner A's handler is paused (blocked, deaf to stop
 * requests and interrupts, as in a long GC pause) while its lease runs out; the distributor moves the unit to B,
 * which claims it with a larger token and writes. When A resumes, its late write is refused by the resource and B's
 * value stays. The lease alone could not have stopped that write; the fence does.
 */
class PausedOwnerStoryTest {
  static final String POOL = "fence-story";
  static final String TABLE = "fence-story-table";
  static final String UNIT = "site-42";

  /** Where the owners write: each kind of fenced resource this module ships. */
  enum Resource { POSTGRESQL, REDIS }

  /** A fenced resource: a write that carries a token, and a read of what is there. */
  interface Sink extends AutoCloseable {
    void write(String unit, long token, String value) throws Exception;

    String read(String unit) throws Exception;

    @Override
    void close() throws SQLException;
  }

  MemoryStore mem;
  FaultyStore aStore;
  Lease distributorLease;
  final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void setUp() {
    mem = new MemoryStore();
    aStore = new FaultyStore(mem);
    distributorLease = mem.leadership().tryAcquire(Tables.leaseName(TABLE, POOL), "fake-distributor", Duration.ofHours(1))
        .orElseThrow();
  }

  @AfterEach
  void tearDown() throws Exception {
    aStore.availability(FaultyStore.Availability.UP); // or A's runner would hang leaving
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    mem.close();
  }

  @ParameterizedTest
  @EnumSource(Resource.class)
  void aPausedOwnersLateWriteIsRefusedAndTheNewOwnersValueStays(Resource resource) throws Exception {
    Sink sink = closeLater(sink(resource));
    CountDownLatch aRunning = new CountDownLatch(1);
    CountDownLatch aResumes = new CountDownLatch(1);
    CompletableFuture<UnitContext> aUnit = new CompletableFuture<>();
    CompletableFuture<Exception> aLateWrite = new CompletableFuture<>();
    UnitRunner a = runner(aStore, unit -> {
      aUnit.complete(unit);
      aRunning.countDown();
      pauseUntil(aResumes); // the pause: the lease runs out meanwhile, stop requests go unheard
      try {
        sink.write(unit.unit(), unit.token(), "from-A");
        aLateWrite.complete(null);
      } catch (Exception e) {
        aLateWrite.complete(e);
      }
    });
    CompletableFuture<Long> bWrote = new CompletableFuture<>();
    UnitRunner b = runner(mem, unit -> {
      sink.write(unit.unit(), unit.token(), "from-B");
      bWrote.complete(unit.token());
      while (!unit.awaitStop(Duration.ofSeconds(1))) {
        // keeps the unit until told to stop
      }
    });

    publish(a.divider().memberId(), UNIT, b.divider().memberId(), "");
    assertThat(aRunning.await(10, TimeUnit.SECONDS)).as("A runs the unit").isTrue();

    aStore.availability(FaultyStore.Availability.DOWN); // A cannot renew: its lease runs out
    await().until(() -> a.divider().stats().leaseLosses() == 1);
    UnitContext unitA = aUnit.getNow(null);
    // the lease machinery did its part: A's handler is told to stop (and interrupted), but it is paused
    await().until(() -> unitA.stopReason().orElse(null) == StopReason.LEASE_LOST);
    publish(a.divider().memberId(), "", b.divider().memberId(), UNIT); // the distributor moves the unit to B
    long tokenB = bWrote.get(10, TimeUnit.SECONDS);   // B claims once A's lease has expired, and writes
    long tokenA = unitA.token();
    assertThat(tokenB).isGreaterThan(tokenA);
    assertThat(sink.read(UNIT)).isEqualTo("from-B");

    aResumes.countDown(); // A wakes up and finishes the write it had started
    assertThat(aLateWrite.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(StaleTokenException.class, e -> {
      assertThat(e.offered()).isEqualTo(tokenA);
      assertThat(e.inForce()).isEqualTo(tokenB);
    });
    assertThat(sink.read(UNIT)).isEqualTo("from-B");
    assertThat(mem.ownership(POOL).owners().get(UNIT).member()).isEqualTo(b.divider().memberId());
  }

  private UnitRunner runner(io.allot.store.Store store, UnitHandler handler) {
    Divider d = Divider.builder(store).pool(POOL).distribution(TABLE).port(0)
        .leaseTtl(Duration.ofMillis(1000)).renewEvery(Duration.ofMillis(150)).fenceMargin(Duration.ofMillis(300))
        .syncInterval(Duration.ofMillis(200)).shutdownGrace(Duration.ofSeconds(1))
        .build();
    UnitRunner r = UnitRunner.builder(d, handler).build();
    closeLater(r);
    r.start();
    return r;
  }

  /** Publishes {@code member, "u1,u2", member, "", ...} as the distributor would. */
  private void publish(String... memberThenUnits) {
    Map<String, String> fields = new java.util.LinkedHashMap<>();
    for (int i = 0; i < memberThenUnits.length; i += 2) {
      fields.put(memberThenUnits[i], memberThenUnits[i + 1]);
    }
    mem.tables().publish(distributorLease, TABLE, POOL, fields);
  }

  /**
   * Blocks until {@code latch} opens, deaf to interrupts: a pause, not a wait (a paused process sees no interrupt, and
   * neither does the write it goes on with; the runner's interrupt is dropped).
   */
  private static void pauseUntil(CountDownLatch latch) {
    while (true) {
      try {
        latch.await();
        return;
      } catch (InterruptedException e) {
        // dropped on purpose
      }
    }
  }

  private Sink sink(Resource resource) throws SQLException {
    String suffix = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    return switch (resource) {
      case POSTGRESQL -> new PostgresSink("fence_story_" + suffix);
      case REDIS -> new RedisSink("allot-fence-story:" + suffix + ":");
    };
  }

  /** One row per unit, upserted in the fenced transaction. */
  static final class PostgresSink implements Sink {
    private final String schema;
    private final JdbcFence fence;

    PostgresSink(String schema) throws SQLException {
      this.schema = schema;
      this.fence = JdbcFence.builder().table(schema + ".allot_fence").build();
      try (Connection c = TestDbs.postgres(); Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA " + schema);
        s.execute("CREATE TABLE " + schema + ".latest (unit text PRIMARY KEY, val text NOT NULL)");
        fence.createTableIfMissing(c);
      }
    }

    @Override
    public void write(String unit, long token, String value) throws SQLException {
      try (Connection c = TestDbs.postgres()) {
        c.setAutoCommit(false);
        try {
          fence.check(c, unit, token);
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + schema + ".latest (unit, val) VALUES (?, ?)"
              + " ON CONFLICT (unit) DO UPDATE SET val = EXCLUDED.val")) {
            ps.setString(1, unit);
            ps.setString(2, value);
            ps.executeUpdate();
          }
          c.commit();
        } catch (SQLException | RuntimeException e) {
          c.rollback();
          throw e;
        }
      }
    }

    @Override
    public String read(String unit) throws SQLException {
      try (Connection c = TestDbs.postgres();
           PreparedStatement ps = c.prepareStatement("SELECT val FROM " + schema + ".latest WHERE unit = ?")) {
        ps.setString(1, unit);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? rs.getString(1) : null;
        }
      }
    }

    @Override
    public void close() throws SQLException {
      try (Connection c = TestDbs.postgres(); Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  /** One string key per unit, SET through the fence. */
  static final class RedisSink implements Sink {
    private final String prefix;
    private final RedisClient client = RedisClient.create(TestServers.redisUri());
    private final StatefulRedisConnection<String, String> connection = client.connect();
    private final RedisFence fence = RedisFence.builder(connection.sync()).build();

    RedisSink(String prefix) {
      this.prefix = prefix;
    }

    @Override
    public void write(String unit, long token, String value) {
      fence.set(prefix + unit, value, token);
    }

    @Override
    public String read(String unit) {
      return connection.sync().get(prefix + unit);
    }

    @Override
    public void close() {
      connection.sync().del(prefix + UNIT, fence.fenceKey(prefix + UNIT));
      connection.close();
      client.shutdown();
    }
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    closeables.add(c);
    return c;
  }

  static org.awaitility.core.ConditionFactory await() {
    return Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10));
  }
}
