package io.allot.store.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.Notifications;
import io.allot.store.Store;
import io.allot.store.StoreClock;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.allot.store.memory.MemoryTaskSpecs;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every store's {@link TaskSpecs} must have. Extend it and provide {@link #specs(String)},
 * {@link #clock()} and {@link #notifications()}. Every test works on a pool with a fresh random name.
 */
public abstract class TaskSpecsContractTest {
  /** Generous enough for a loaded 2-core CI machine; conditions are polled, never slept on. */
  protected static final Duration PATIENCE = Duration.ofSeconds(10);

  private TaskSpecs s;
  private String pool;

  /** The store under test (where it has two clients, the one its clock and notifications are read through). */
  protected abstract Store store();

  /** The specs of {@code pool} in the store under test (override to alternate clients, where a store has two). */
  protected TaskSpecs specs(String pool) {
    return store().taskSpecs(pool);
  }

  /** The store's clock. */
  protected final StoreClock clock() {
    return store().clock();
  }

  /** The store's notifications. */
  protected final Notifications notifications() {
    return store().notifications();
  }

  @BeforeEach
  void newPool() {
    pool = "p-" + UUID.randomUUID().toString().substring(0, 8);
    s = specs(pool);
  }

  /** The pool of the running test. */
  protected String pool() {
    return pool;
  }

  @Test
  void aNewPoolHasNoSpecsAndVersionZero() {
    assertThat(s.list()).isEmpty();
    assertThat(s.version()).isZero();
    assertThat(s.get("nothing")).isEmpty();
    assertThat(s.update("nothing", "{}", 1)).isEmpty();
    assertThat(s.delete("nothing")).isEmpty();
    assertThat(s.pool()).isEqualTo(pool);
  }

  @Test
  void createWritesASpecAtStoreTimeAndIsIdempotentForTheSameArgs() {
    long before = clock().timeMillis();
    TaskCreated c = s.create("ticker.BTC-USD", "{\"venue\":\"x\"}", 2);
    long after = clock().timeMillis();
    assertThat(c.outcome()).isEqualTo(TaskCreated.Outcome.CREATED);
    TaskSpec t = c.spec();
    assertThat(t.name()).isEqualTo("ticker.BTC-USD");
    assertThat(t.args()).isEqualTo("{\"venue\":\"x\"}");
    assertThat(t.cost()).isEqualTo(2);
    assertThat(t.revision()).isEqualTo(1);
    assertThat(t.createdMillis()).isBetween(before, after);
    assertThat(t.updatedMillis()).isEqualTo(t.createdMillis());
    assertThat(t.deleted()).isFalse();
    assertThat(t.run()).isNull();
    assertThat(t.fault()).isNull();
    assertThat(s.get("ticker.BTC-USD")).contains(t);
    long v = s.version();
    assertThat(v).isPositive();

    TaskCreated again = s.create("ticker.BTC-USD", "{\"venue\":\"x\"}", 2);
    assertThat(again.outcome()).isEqualTo(TaskCreated.Outcome.EXISTS);
    assertThat(again.spec()).isEqualTo(t);
    assertThat(s.version()).as("an idempotent create changes nothing").isEqualTo(v);

    TaskCreated other = s.create("ticker.BTC-USD", "{\"venue\":\"y\"}", 2);
    assertThat(other.outcome()).isEqualTo(TaskCreated.Outcome.CONFLICT);
    assertThat(other.spec()).isEqualTo(t);
    assertThat(s.create("ticker.BTC-USD", "{\"venue\":\"x\"}", 3).outcome()).isEqualTo(TaskCreated.Outcome.CONFLICT);
    assertThat(s.get("ticker.BTC-USD")).contains(t);
    assertThat(s.version()).isEqualTo(v);
  }

  @Test
  void updateArgsKeepsTheCostAsItIsAtTheWrite() {
    s.create("keep", "{\"v\":1}", 2);
    s.update("keep", "{\"v\":1}", 7); // another writer's cost
    TaskSpec t = s.updateArgs("keep", "{\"v\":2}").orElseThrow();
    assertThat(t.cost()).isEqualTo(7);
    assertThat(t.args()).isEqualTo("{\"v\":2}");
    assertThat(t.revision()).isEqualTo(3);
    long v = s.version();
    assertThat(s.updateArgs("keep", "{\"v\":2}")).contains(t);
    assertThat(s.version()).as("the same args change nothing").isEqualTo(v);
    assertThat(s.updateArgs("nothing", "{}")).isEmpty();
    s.delete("keep");
    assertThat(s.updateArgs("keep", "{\"v\":3}")).isEmpty();
    assertThat(s.get("keep").orElseThrow().args()).isEqualTo("{\"v\":2}");
  }

  @Test
  void updateBumpsTheRevisionOnlyWhenSomethingChanged() {
    TaskSpec t = s.create("a", "{}", 1).spec();
    long v = s.version();
    assertThat(s.update("a", "{}", 1)).contains(t);
    assertThat(s.version()).isEqualTo(v);
    TaskSpec u = s.update("a", "{\"n\":1}", 1).orElseThrow();
    assertThat(u.revision()).isEqualTo(2);
    assertThat(u.args()).isEqualTo("{\"n\":1}");
    assertThat(u.createdMillis()).isEqualTo(t.createdMillis());
    assertThat(u.updatedMillis()).isGreaterThanOrEqualTo(t.updatedMillis());
    assertThat(s.version()).isGreaterThan(v);
    TaskSpec w = s.update("a", "{\"n\":1}", 5).orElseThrow();
    assertThat(w.revision()).isEqualTo(3);
    assertThat(w.cost()).isEqualTo(5);
    assertThat(s.get("a")).contains(w);
  }

  @Test
  void deleteLeavesATombstoneThatARecreateReplacesWithAHigherRevision() {
    s.create("a", "{\"x\":1}", 1);
    s.update("a", "{\"x\":2}", 1);
    TaskSpec gone = s.delete("a").orElseThrow();
    assertThat(gone.deleted()).isTrue();
    assertThat(gone.deletedMillis()).isPositive();
    assertThat(gone.revision()).isEqualTo(2);
    assertThat(s.delete("a")).contains(gone);
    assertThat(s.update("a", "{}", 1)).as("a tombstone is not updated").isEmpty();
    assertThat(s.get("a")).contains(gone);
    assertThat(s.list()).containsExactly(gone);

    TaskCreated back = s.create("a", "{\"x\":2}", 1);
    assertThat(back.outcome()).isEqualTo(TaskCreated.Outcome.CREATED);
    assertThat(back.spec().revision()).isEqualTo(3);
    assertThat(back.spec().deleted()).isFalse();
    assertThat(back.spec().run()).isNull();
    assertThat(s.purge("a", 2)).as("the tombstone of revision 2 is gone already").isFalse();
    assertThat(s.get("a")).contains(back.spec());
  }

  @Test
  void purgeRemovesOnlyTheTombstoneOfThatRevision() {
    s.create("a", "{}", 1);
    assertThat(s.purge("a", 1)).as("a live spec is never purged").isFalse();
    TaskSpec gone = s.delete("a").orElseThrow();
    assertThat(s.purge("a", gone.revision() + 1)).isFalse();
    long v = s.version();
    assertThat(s.purge("a", gone.revision())).isTrue();
    assertThat(s.version()).isGreaterThan(v);
    assertThat(s.get("a")).isEmpty();
    assertThat(s.list()).isEmpty();
    assertThat(s.purge("a", gone.revision())).isFalse();
  }

  @Test
  void listIsSortedByNameAndHoldsTombstones() {
    for (String n : List.of("c", "a", "b2", "b1")) {
      s.create(n, "{}", 1);
    }
    s.delete("b2");
    assertThat(s.list()).extracting(TaskSpec::name).containsExactly("a", "b1", "b2", "c");
    assertThat(s.list()).filteredOn(TaskSpec::deleted).extracting(TaskSpec::name).containsExactly("b2");
    assertThat(specs("other-" + pool).list()).as("pools are separate").isEmpty();
  }

  @Test
  void startedKeepsTheNewestRunAndStampsStoreTime() {
    s.create("a", "{}", 1);
    long before = clock().timeMillis();
    assertThat(s.started("a", new TaskRun("m1", 10, 1, 0))).isTrue();
    TaskRun run = s.get("a").orElseThrow().run();
    assertThat(run.member()).isEqualTo("m1");
    assertThat(run.token()).isEqualTo(10);
    assertThat(run.revision()).isEqualTo(1);
    assertThat(run.startedMillis()).isBetween(before, clock().timeMillis());
    assertThat(s.started("a", new TaskRun("m0", 9, 1, 0))).as("a stale owner's report").isFalse();
    assertThat(s.get("a").orElseThrow().run().member()).isEqualTo("m1");
    assertThat(s.started("a", new TaskRun("m1", 10, 2, 0))).as("a restart under the same token").isTrue();
    assertThat(s.get("a").orElseThrow().run().revision()).isEqualTo(2);
    assertThat(s.started("a", new TaskRun("m2", 11, 2, 0))).isTrue();
    assertThat(s.get("a").orElseThrow().run().member()).isEqualTo("m2");
    assertThat(s.started("missing", new TaskRun("m2", 11, 1, 0))).isFalse();
    assertThat(s.get("missing")).isEmpty();
  }

  /**
   * Subscribes {@code got} to the pool's task-spec announcements and returns once the subscription is live (a probe
   * came through), so that a change made afterwards cannot arrive late and be counted twice (on Redis Cluster a message
   * published before subscribing may still be on the bus to the subscriber's node).
   */
  private Subscription subscribeLive(Queue<String> got) {
    Subscription sub = notifications().subscribe(Topic.taskSpecs(pool), got::add);
    try {
      await().atMost(PATIENCE).until(() -> {
        notifications().publish(Topic.taskSpecs(pool), "probe");
        return got.contains("probe");
      });
    } catch (RuntimeException | Error e) {
      sub.close();
      throw e;
    }
    return sub;
  }

  @Test
  void reportsAreNotAnnouncedAndLeaveTheVersionAlone() throws Exception {
    ConcurrentLinkedQueue<String> got = new ConcurrentLinkedQueue<>();
    try (Subscription sub = subscribeLive(got)) {
      s.create("a", "{}", 1);
      await().atMost(PATIENCE).until(() -> got.contains("a"));
      got.clear();
      long v = s.version();
      assertThat(s.started("a", new TaskRun("m1", 10, 1, 0))).isTrue();
      assertThat(s.fault("a", 10, new TaskFault(1, false, "x", 1))).isTrue();
      assertThat(s.version()).isEqualTo(v);
      s.update("a", "{\"n\":1}", 1); // announced: after it arrives, an announcement of the reports would have too
      await().atMost(PATIENCE).until(() -> got.contains("a"));
      assertThat(got).filteredOn(m -> !m.equals("probe")).as("only the update's announcement").containsExactly("a");
    }
  }

  @Test
  void faultsBelongToTheRunThatReportsThem() {
    s.create("a", "{}", 1);
    assertThat(s.fault("a", 10, new TaskFault(1, false, "boom", 5))).as("no run yet").isFalse();
    s.started("a", new TaskRun("m1", 10, 1, 0));
    TaskFault f = new TaskFault(4, true, "java.io.IOException: closed", 1234);
    assertThat(s.fault("a", 9, f)).isFalse();
    assertThat(s.fault("a", 10, f)).isTrue();
    assertThat(s.get("a").orElseThrow().fault()).isEqualTo(f);
    assertThat(s.started("a", new TaskRun("m1", 10, 1, 0))).isTrue();
    assertThat(s.get("a").orElseThrow().fault()).as("a restart under the same token keeps its faults").isEqualTo(f);
    assertThat(s.fault("a", 10, null)).isTrue();
    assertThat(s.get("a").orElseThrow().fault()).isNull();
    s.fault("a", 10, f);
    s.started("a", new TaskRun("m2", 11, 1, 0));
    assertThat(s.get("a").orElseThrow().fault()).as("a new owner starts clean").isNull();
  }

  @Test
  void runAndFaultSurviveUpdateAndDelete() {
    s.create("a", "{}", 1);
    s.started("a", new TaskRun("m1", 10, 1, 0));
    s.fault("a", 10, new TaskFault(1, false, "x", 1));
    TaskSpec u = s.update("a", "{\"v\":2}", 1).orElseThrow();
    assertThat(u.run().token()).isEqualTo(10);
    assertThat(u.fault().lastError()).isEqualTo("x");
    TaskSpec d = s.delete("a").orElseThrow();
    assertThat(d.run().token()).isEqualTo(10);
    assertThat(s.started("a", new TaskRun("m1", 10, 2, 0))).as("a tombstone still records its run").isTrue();
  }

  @Test
  void textIsKeptVerbatim() {
    String args = "{\"s\":\"ünïcödé \\\" , ; ' \\n 💡\",\"n\":[1,2,3]}";
    s.create("a", args, 1);
    assertThat(s.get("a").orElseThrow().args()).isEqualTo(args);
    String err = "line1\nline2 \"quoted\" 💡";
    s.started("a", new TaskRun("host-1:9000", 1, 1, 0));
    s.fault("a", 1, new TaskFault(2, true, err, 7));
    assertThat(s.get("a").orElseThrow().fault().lastError()).isEqualTo(err);
    String big = "{\"b\":\"" + "x".repeat(TaskLimits.MAX_ARGS_BYTES - 8) + "\"}";
    assertThat(big.length()).isEqualTo(TaskLimits.MAX_ARGS_BYTES);
    s.create("big", big, 1);
    assertThat(s.get("big").orElseThrow().args()).isEqualTo(big);
  }

  @Test
  void anErrorCutToTheLimitKeepsWholeCharactersSoEveryStoreKeepsItVerbatim() {
    s.create("a", "{}", 1);
    s.started("a", new TaskRun("m1", 1, 1, 0));
    String err = "x".repeat(TaskLimits.MAX_ERROR_CHARS - 1) + "💡 and more";
    TaskFault f = new TaskFault(1, true, err, 1);
    assertThat(f.lastError()).as("not half of the surrogate pair").isEqualTo("x".repeat(TaskLimits.MAX_ERROR_CHARS - 1));
    assertThat(s.fault("a", 1, f)).isTrue();
    assertThat(s.get("a").orElseThrow().fault()).isEqualTo(f);
    TaskFault odd = new TaskFault(1, true, "nul \u0000 lone \ud83d and \udca1 pair 💡", 1);
    assertThat(odd.lastError()).isEqualTo("nul \ufffd lone \ufffd and \ufffd pair 💡");
    assertThat(s.fault("a", 1, odd)).isTrue();
    assertThat(s.get("a").orElseThrow().fault()).isEqualTo(odd);
  }

  @Test
  void badInputIsRefusedNamingItAndChangesNothing() {
    s.create("a", "{}", 1);
    long v = s.version();
    assertThatThrownBy(() -> s.create("", "{}", 1)).hasMessageContaining("task name");
    assertThatThrownBy(() -> s.create("a,b", "{}", 1)).hasMessageContaining("'a,b'");
    assertThatThrownBy(() -> s.create("a/b", "{}", 1)).hasMessageContaining("bad character");
    assertThatThrownBy(() -> s.create("-a", "{}", 1)).hasMessageContaining("bad character");
    assertThatThrownBy(() -> s.create("x".repeat(201), "{}", 1)).hasMessageContaining("at most 200");
    assertThatThrownBy(() -> s.create("b", "{}", 0)).hasMessageContaining("cost");
    assertThatThrownBy(() -> s.update("a", "{}", -1)).hasMessageContaining("cost");
    assertThatThrownBy(() -> s.create("b", null, 1)).hasMessageContaining("args");
    String tooBig = "\"" + "é".repeat(TaskLimits.MAX_ARGS_BYTES / 2) + "\"";
    assertThatThrownBy(() -> s.create("b", tooBig, 1)).hasMessageContaining("bytes; at most");
    assertThatThrownBy(() -> s.update("a", tooBig, 1)).hasMessageContaining("bytes; at most");
    assertThatThrownBy(() -> s.create("b", "{\"x\":\"\ud83d\"}", 1)).hasMessageContaining("args")
        .hasMessageContaining("unpaired surrogate at 6");
    assertThatThrownBy(() -> s.update("a", "{\"x\":\"\u0000\"}", 1)).hasMessageContaining("args")
        .hasMessageContaining("NUL character at 6");
    assertThat(s.version()).isEqualTo(v);
    assertThat(s.list()).extracting(TaskSpec::name).containsExactly("a");
  }

  @Test
  void everyChangeIsAnnouncedWithTheTaskName() throws Exception {
    ConcurrentLinkedQueue<String> got = new ConcurrentLinkedQueue<>();
    try (Subscription sub = subscribeLive(got)) {
      s.create("a", "{}", 1);
      s.update("a", "{\"x\":1}", 1);
      s.delete("a");
      await().atMost(PATIENCE).until(() -> got.stream().filter("a"::equals).count() >= 3);
    }
  }

  @Test
  void concurrentCreatesOfOneNameMakeOneSpec() throws Exception {
    int n = 8;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch go = new CountDownLatch(1);
      AtomicInteger created = new AtomicInteger();
      AtomicInteger conflicts = new AtomicInteger();
      List<Future<?>> fs = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        int me = i;
        TaskSpecs mine = specs(pool());
        fs.add(pool.submit(() -> {
          go.await();
          TaskCreated c = mine.create("race", "{\"by\":" + me + "}", 1);
          if (c.outcome() == TaskCreated.Outcome.CREATED) {
            created.incrementAndGet();
          } else if (c.outcome() == TaskCreated.Outcome.CONFLICT) {
            conflicts.incrementAndGet();
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : fs) {
        f.get(30, TimeUnit.SECONDS);
      }
      assertThat(created.get()).isEqualTo(1);
      assertThat(conflicts.get()).isEqualTo(n - 1);
      assertThat(s.get("race").orElseThrow().revision()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Random sequences of every operation give the same answers and leave the same specs as the memory store's specs
   * (the reference), seed by seed, in every store; times, which each store stamps from its own clock, are compared as "set or not".
   */
  @Test
  void behavesAsTheMemoryReferenceUnderRandomOperations() {
    List<String> texts = List.of("{}", "{\"a\":1}", "{\"s\":\"ü \\\" , | \\n 💡\"}", "", "|||", "{\"a\":1} ");
    List<Long> tokens = List.of(-3L, 0L, 7L, 8L, (1L << 53), (1L << 53) + 1, Long.MAX_VALUE);
    for (long seed = 1; seed <= 3; seed++) {
      Random rnd = new Random(seed);
      AtomicLong millis = new AtomicLong(System.currentTimeMillis());
      TaskSpecs mem = new MemoryTaskSpecs(millis::incrementAndGet, (p, n) -> { }).pool("model");
      TaskSpecs red = specs(pool() + "-" + seed);
      List<String> names = IntStream.range(0, 6).mapToObj(i -> "t" + i).toList();
      long memVersion = 0;
      long redVersion = 0;
      for (int step = 0; step < 150; step++) {
        String at = "seed " + seed + " step " + step;
        String name = names.get(rnd.nextInt(names.size()));
        String args = texts.get(rnd.nextInt(texts.size()));
        int cost = 1 + rnd.nextInt(2);
        long token = tokens.get(rnd.nextInt(tokens.size()));
        switch (rnd.nextInt(8)) {
          case 0, 1 -> {
            TaskCreated m = mem.create(name, args, cost);
            TaskCreated r = red.create(name, args, cost);
            assertThat(r.outcome()).as(at).isEqualTo(m.outcome());
            same(at, Optional.of(r.spec()), Optional.of(m.spec()));
          }
          case 2 -> same(at, red.update(name, args, cost), mem.update(name, args, cost));
          case 3 -> same(at, red.delete(name), mem.delete(name));
          case 4 -> {
            TaskRun run = new TaskRun("m-" + rnd.nextInt(3) + "|x", token, rnd.nextInt(4), 0);
            assertThat(red.started(name, run)).as(at).isEqualTo(mem.started(name, run));
          }
          case 5 -> {
            TaskFault f = rnd.nextInt(4) == 0 ? null : new TaskFault(rnd.nextInt(9), rnd.nextBoolean(),
                "err " + step + (rnd.nextBoolean() ? "\n| \"x\"" : ""), rnd.nextLong());
            assertThat(red.fault(name, token, f)).as(at).isEqualTo(mem.fault(name, token, f));
          }
          case 6 -> {
            long revision = mem.get(name).map(TaskSpec::revision).orElse(1L) - 1 + rnd.nextInt(2);
            assertThat(red.purge(name, revision)).as(at).isEqualTo(mem.purge(name, revision));
          }
          default -> same(at, red.get(name), mem.get(name));
        }
        long mv = mem.version();
        long rv = red.version();
        assertThat(rv > redVersion).as(at + ": version changed").isEqualTo(mv > memVersion);
        memVersion = mv;
        redVersion = rv;
        List<TaskSpec> ml = mem.list();
        List<TaskSpec> rl = red.list();
        assertThat(rl).as(at).extracting(TaskSpec::name).containsExactlyElementsOf(ml.stream().map(TaskSpec::name)
            .toList());
        for (int i = 0; i < ml.size(); i++) {
          same(at + " list", Optional.of(rl.get(i)), Optional.of(ml.get(i)));
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
