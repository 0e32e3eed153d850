package io.allot.tasks.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.UnitOwner;
import io.allot.store.tasks.TaskFault;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Invariants of {@link TaskStatuses#derive} over random specs, owners, members and tables: QuickTheories theories,
 * which try the bounds first (no member, four members; the lowest and highest of each number) and then random cases; a
 * failure prints the falsifying case and the seed, which {@code -DQT_SEED=...} replays.
 */
class TaskStatusesProperties {
  static final long NOW = 1_000_000;

  record Case(TaskSpec spec, UnitOwner owner, PoolState pool) {}

  static Gen<Case> cases() {
    return integers().between(0, 4).flatMap(n -> {
      Gen<List<MemberRecord>> members = lists().of(integers().between(0, 1000)).ofSize(n * 4).map(r -> {
        List<MemberRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          int cap = r.get(4 * i) % 5 == 0 ? Integer.MAX_VALUE : r.get(4 * i) % 12;
          out.add(new MemberRecord("m" + i, MemberMeta.of(r.get(4 * i + 1) % 3, cap), 1 + r.get(4 * i + 2) % 2,
              r.get(4 * i + 3) % 2 == 0 ? NOW + 1000 : NOW - 1));
        }
        return out;
      });
      Gen<TaskSpec> spec = integers().between(1, 12).zip(booleans().all(), integers().between(0, 3),
          arbitrary().pick(0, 1, 2), (cost, deleted, runToken, fault) ->
          new TaskSpec("t", "{}", cost, 1, 1, 1, deleted ? 5 : 0,
              runToken == 0 ? null : new TaskRun("m0", runToken, 1, 1),
              fault == 0 || runToken == 0 ? null : new TaskFault(3, fault == 2, "err", 1)));
      Gen<UnitOwner> owner = integers().between(-1, Math.max(0, n - 1)).zip(
          integers().between(1, 2), integers().between(1, 3),
          (m, session, token) -> m < 0 ? null : new UnitOwner("t", "m" + m, session, token));
      Gen<Map<String, List<String>>> table = lists().of(integers().between(0, 7)).ofSize(n).map(r -> {
        Map<String, List<String>> t = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
          List<String> units = new ArrayList<>();
          if ((r.get(i) & 1) != 0) {
            units.add("t");
          }
          if ((r.get(i) & 2) != 0) {
            units.add("x" + i);
          }
          t.put("m" + i, units);
        }
        return t;
      });
      return members.zip(spec, owner, table, (ms, s, o, t) -> {
        Map<String, MemberRecord> byId = new LinkedHashMap<>();
        ms.forEach(m -> byId.put(m.id(), m));
        Map<String, Integer> costs = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
          costs.put("x" + i, 1 + i * 3);
        }
        if (!s.deleted()) {
          costs.put("t", s.cost());
        }
        return new Case(s, o, new PoolState(NOW, byId, t, costs));
      });
    });
  }

  @Test
  void statusFollowsTheRules() {
    qt().withExamples(2000).forAll(cases()).checkAssert(this::statusFollowsTheRules);
  }

  private void statusFollowsTheRules(Case c) {
    DerivedStatus d = TaskStatuses.derive(c.spec(), c.owner(), c.pool());
    boolean live = TaskStatuses.liveClaim(c.owner(), c.pool());
    // owner and token are exactly those of a live claim
    assertThat(d.owner()).isEqualTo(live ? c.owner().member() : null);
    assertThat(d.token()).isEqualTo(live ? c.owner().token() : null);
    if (c.spec().deleted()) {
      assertThat(d.state()).isEqualTo(live ? TaskStatus.ON_DELETING : TaskStatus.DELETED);
      return;
    }
    assertThat(d.state()).isNotIn(TaskStatus.ON_DELETING, TaskStatus.DELETED);
    boolean confirmed = live && c.spec().run() != null && c.spec().run().token() == c.owner().token();
    assertThat(d.state() == TaskStatus.PROCESSING || d.state() == TaskStatus.FAILED).isEqualTo(confirmed);
    if (confirmed) {
      assertThat(d.state() == TaskStatus.FAILED).isEqualTo(c.spec().fault() != null && c.spec().fault().failing());
      return;
    }
    boolean room = c.pool().members().values().stream().anyMatch(m -> m.liveAt(NOW) && m.affinity() > 0
        && c.pool().free(m) >= c.spec().cost());
    assertThat(d.state()).isEqualTo(c.pool().placed("t") || room ? TaskStatus.CREATED : TaskStatus.PENDING);
    if (d.state() == TaskStatus.PENDING) {
      assertThat(d.reason()).isNotBlank();
      if (c.pool().members().values().stream().noneMatch(m -> m.liveAt(NOW))) {
        assertThat(d.reason()).isEqualTo("no live member in pool");
      }
    }
  }

  /** More capacity on any member never turns a Created task into a Pending one (statuses are monotone in room). */
  @Test
  void moreCapacityNeverMakesATaskPending() {
    qt().withExamples(1000).forAll(cases(), integers().between(1, 20)).checkAssert(this::moreCapacityNeverMakesATaskPending);
  }

  private void moreCapacityNeverMakesATaskPending(Case c, int more) {
    DerivedStatus before = TaskStatuses.derive(c.spec(), c.owner(), c.pool());
    Map<String, MemberRecord> bigger = new LinkedHashMap<>();
    c.pool().members().forEach((id, m) -> bigger.put(id, new MemberRecord(id, m.meta().withCapacity(
        m.capacity() == Integer.MAX_VALUE ? m.capacity() : m.capacity() + more), m.session(), m.leaseUntilMillis())));
    DerivedStatus after = TaskStatuses.derive(c.spec(), c.owner(),
        new PoolState(c.pool().nowMillis(), bigger, c.pool().table(), c.pool().costs()));
    if (before.state() != TaskStatus.PENDING) {
      assertThat(after.state()).isEqualTo(before.state());
    }
  }

  @Test
  void deriveIsPure() {
    qt().withExamples(500).forAll(cases()).checkAssert(this::deriveIsPure);
  }

  private void deriveIsPure(Case c) {
    assertThat(TaskStatuses.derive(c.spec(), c.owner(), c.pool()))
        .isEqualTo(TaskStatuses.derive(c.spec(), c.owner(), c.pool()));
  }
}
