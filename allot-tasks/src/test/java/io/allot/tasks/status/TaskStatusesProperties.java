package io.allot.tasks.status;

import static org.assertj.core.api.Assertions.assertThat;

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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Invariants of {@link TaskStatuses#derive} over random specs, owners, members and tables. */
class TaskStatusesProperties {
  static final long NOW = 1_000_000;

  record Case(TaskSpec spec, UnitOwner owner, PoolState pool) {}

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<Integer> memberCount = Arbitraries.integers().between(0, 4);
    return memberCount.flatMap(n -> {
      Arbitrary<List<MemberRecord>> members = Arbitraries.integers().between(0, 1000).list().ofSize(n * 4).map(r -> {
        List<MemberRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          int cap = r.get(4 * i) % 5 == 0 ? Integer.MAX_VALUE : r.get(4 * i) % 12;
          out.add(new MemberRecord("m" + i, MemberMeta.of(r.get(4 * i + 1) % 3, cap), 1 + r.get(4 * i + 2) % 2,
              r.get(4 * i + 3) % 2 == 0 ? NOW + 1000 : NOW - 1));
        }
        return out;
      });
      Arbitrary<TaskSpec> spec = Combinators.combine(Arbitraries.integers().between(1, 12), Arbitraries.of(true, false),
          Arbitraries.integers().between(0, 3), Arbitraries.of(0, 1, 2)).as((cost, deleted, runToken, fault) ->
          new TaskSpec("t", "{}", cost, 1, 1, 1, deleted ? 5 : 0,
              runToken == 0 ? null : new TaskRun("m0", runToken, 1, 1),
              fault == 0 || runToken == 0 ? null : new TaskFault(3, fault == 2, "err", 1)));
      Arbitrary<UnitOwner> owner = Combinators.combine(Arbitraries.integers().between(-1, Math.max(0, n - 1)),
          Arbitraries.integers().between(1, 2), Arbitraries.integers().between(1, 3))
          .as((m, session, token) -> m < 0 ? null : new UnitOwner("t", "m" + m, session, token));
      Arbitrary<Map<String, List<String>>> table = Arbitraries.integers().between(0, 7).list().ofSize(n).map(r -> {
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
      return Combinators.combine(members, spec, owner, table).as((ms, s, o, t) -> {
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

  @Property(tries = 2000)
  void statusFollowsTheRules(@ForAll("cases") Case c) {
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
  @Property(tries = 1000)
  void moreCapacityNeverMakesATaskPending(@ForAll("cases") Case c, @ForAll @net.jqwik.api.constraints.IntRange(min = 1,
      max = 20) int more) {
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

  @Property(tries = 500)
  void deriveIsPure(@ForAll("cases") Case c) {
    assertThat(TaskStatuses.derive(c.spec(), c.owner(), c.pool()))
        .isEqualTo(TaskStatuses.derive(c.spec(), c.owner(), c.pool()));
  }
}
