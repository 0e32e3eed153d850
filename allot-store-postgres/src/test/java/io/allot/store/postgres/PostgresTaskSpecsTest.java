package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Notifications;
import io.allot.store.StoreClock;
import io.allot.store.memory.MemoryTaskSpecs;
import io.allot.store.spec.Created;
import io.allot.store.spec.TaskFault;
import io.allot.store.spec.TaskRun;
import io.allot.store.spec.TaskSpec;
import io.allot.store.spec.TaskSpecs;
import io.allot.store.spec.TaskSpecsContractTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The task-specs contract on PostgreSQL (a schema of its own), two stores as two processes would have, used in turn.
 * Plus what SQL users see in the table, and random operations compared with the memory store's specs (the
 * reference).
 */
class PostgresTaskSpecsTest extends TaskSpecsContractTest {
  private static final TestSchema SCHEMA = TestSchema.random();
  private static PostgresStore store;
  private static PostgresStore peer;
  private static boolean flip;

  @BeforeAll
  static void connect() {
    store = SCHEMA.connect();
    peer = SCHEMA.connect();
  }

  @AfterAll
  static void disconnect() {
    if (store != null) {
      store.close();
      peer.close();
    }
    SCHEMA.close();
  }

  @Override
  protected TaskSpecs specs(String pool) {
    flip = !flip;
    return (flip ? store : peer).taskSpecs(pool);
  }

  @Override
  protected StoreClock clock() {
    return store.clock();
  }

  @Override
  protected Notifications notifications() {
    return store.notifications();
  }

  @Test
  void sqlUsersSeeSpecsRunsAndFaultsInTheTable() throws SQLException {
    TaskSpecs s = specs(pool());
    s.create("a", "{\"venue\":\"x\"}", 3);
    s.started("a", new TaskRun("m1", 42, 1, 0));
    s.fault("a", 42, new TaskFault(2, true, "boom", 1234));
    s.create("b", "{}", 1);
    s.delete("b");
    try (Connection raw = TestSchema.raw(); Statement st = raw.createStatement();
        ResultSet rs = st.executeQuery("SELECT name, args, cost, revision, deleted_at IS NULL, run_member, run_token, "
            + "fault_failures, fault_failing, fault_error, fault_at_ms FROM " + SCHEMA.quoted()
            + ".task_specs WHERE pool = '" + pool() + "' ORDER BY name")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("a");
      assertThat(rs.getString(2)).isEqualTo("{\"venue\":\"x\"}");
      assertThat(rs.getInt(3)).isEqualTo(3);
      assertThat(rs.getLong(4)).isEqualTo(1);
      assertThat(rs.getBoolean(5)).isTrue();
      assertThat(rs.getString(6)).isEqualTo("m1");
      assertThat(rs.getLong(7)).isEqualTo(42);
      assertThat(rs.getInt(8)).isEqualTo(2);
      assertThat(rs.getBoolean(9)).isTrue();
      assertThat(rs.getString(10)).isEqualTo("boom");
      assertThat(rs.getLong(11)).isEqualTo(1234);
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("b");
      assertThat(rs.getBoolean(5)).isFalse();
      assertThat(rs.getString(6)).isNull();
      assertThat(rs.next()).isFalse();
    }
    assertThat(s.version()).isEqualTo(3); // create, create, delete: the run and fault reports are not changes of the spec
  }

  @Test
  void extremeTokensAndNegativeOnesCompareAsNumbers() {
    TaskSpecs s = specs(pool());
    s.create("a", "{}", 1);
    assertThat(s.started("a", new TaskRun("m1", -10, 1, 0))).isTrue();
    assertThat(s.started("a", new TaskRun("m1", -11, 1, 0))).isFalse();
    assertThat(s.started("a", new TaskRun("m2", Long.MAX_VALUE, 1, 0))).isTrue();
    assertThat(s.fault("a", Long.MAX_VALUE, new TaskFault(1, false, "x", Long.MIN_VALUE))).isTrue();
    assertThat(s.get("a").orElseThrow().fault().lastErrorMillis()).isEqualTo(Long.MIN_VALUE);
    assertThat(s.started("a", new TaskRun("m3", Long.MAX_VALUE - 1, 1, 0))).isFalse();
  }

  /**
   * Random sequences of every operation give the same answers and leave the same specs as the memory store's specs
   * (the reference), seed by seed; times, which each store stamps from its own clock, are compared as "set or not".
   */
  @Test
  void behavesAsTheMemoryReferenceUnderRandomOperations() {
    List<String> texts = List.of("{}", "{\"a\":1}", "{\"s\":\"ü ' \\\" , | \\n 💡\"}", "", "{\"a\":1} ");
    List<Long> tokens = List.of(-3L, 0L, 7L, 8L, Long.MAX_VALUE);
    for (long seed = 1; seed <= 3; seed++) {
      Random rnd = new Random(seed);
      AtomicLong millis = new AtomicLong(System.currentTimeMillis());
      TaskSpecs mem = new MemoryTaskSpecs(millis::incrementAndGet, (p, n) -> { }).pool("model");
      TaskSpecs pg = specs(pool() + "-" + seed);
      List<String> names = IntStream.range(0, 5).mapToObj(i -> "t" + i).toList();
      long memVersion = 0;
      long pgVersion = 0;
      for (int step = 0; step < 120; step++) {
        String at = "seed " + seed + " step " + step;
        String name = names.get(rnd.nextInt(names.size()));
        String args = texts.get(rnd.nextInt(texts.size()));
        int cost = 1 + rnd.nextInt(2);
        long token = tokens.get(rnd.nextInt(tokens.size()));
        switch (rnd.nextInt(8)) {
          case 0, 1 -> {
            Created m = mem.create(name, args, cost);
            Created r = pg.create(name, args, cost);
            assertThat(r.outcome()).as(at).isEqualTo(m.outcome());
            same(at, Optional.of(r.spec()), Optional.of(m.spec()));
          }
          case 2 -> same(at, pg.update(name, args, cost), mem.update(name, args, cost));
          case 3 -> same(at, pg.delete(name), mem.delete(name));
          case 4 -> {
            TaskRun run = new TaskRun("m-" + rnd.nextInt(3), token, rnd.nextInt(4), 0);
            assertThat(pg.started(name, run)).as(at).isEqualTo(mem.started(name, run));
          }
          case 5 -> {
            TaskFault f = rnd.nextInt(4) == 0 ? null : new TaskFault(rnd.nextInt(9), rnd.nextBoolean(),
                "err " + step + (rnd.nextBoolean() ? "\n| \"x\"" : ""), rnd.nextLong());
            assertThat(pg.fault(name, token, f)).as(at).isEqualTo(mem.fault(name, token, f));
          }
          case 6 -> {
            long revision = mem.get(name).map(TaskSpec::revision).orElse(1L) - 1 + rnd.nextInt(2);
            assertThat(pg.purge(name, revision)).as(at).isEqualTo(mem.purge(name, revision));
          }
          default -> same(at, pg.get(name), mem.get(name));
        }
        long mv = mem.version();
        long pv = pg.version();
        assertThat(pv > pgVersion).as(at + ": version changed").isEqualTo(mv > memVersion);
        memVersion = mv;
        pgVersion = pv;
        List<TaskSpec> ml = mem.list();
        List<TaskSpec> pl = pg.list();
        assertThat(pl).as(at).extracting(TaskSpec::name).containsExactlyElementsOf(ml.stream().map(TaskSpec::name)
            .toList());
        for (int i = 0; i < ml.size(); i++) {
          same(at + " list", Optional.of(pl.get(i)), Optional.of(ml.get(i)));
        }
      }
    }
  }

  private static void same(String at, Optional<TaskSpec> actual, Optional<TaskSpec> expected) {
    assertThat(actual.isPresent()).as(at).isEqualTo(expected.isPresent());
    expected.ifPresent(m -> {
      TaskSpec r = actual.orElseThrow();
      assertThat(r).as(at).extracting(TaskSpec::name, TaskSpec::args, TaskSpec::cost, TaskSpec::revision,
          TaskSpec::deleted, TaskSpec::fault).containsExactly(m.name(), m.args(), m.cost(), m.revision(),
          m.deleted(), m.fault());
      assertThat(r.createdMillis() > 0 && r.updatedMillis() >= r.createdMillis()).as(at).isTrue();
      assertThat(r.run() == null).as(at).isEqualTo(m.run() == null);
      if (m.run() != null) {
        assertThat(r.run()).as(at).extracting(TaskRun::member, TaskRun::token, TaskRun::revision)
            .containsExactly(m.run().member(), m.run().token(), m.run().revision());
        assertThat(r.run().startedMillis()).as(at).isPositive();
      }
    });
  }
}
