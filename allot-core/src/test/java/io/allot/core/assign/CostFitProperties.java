package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link CostFit}: capacities in cost units, every unit once, minimal eviction, determinism. Each property is a
 * QuickTheories theory over the seed of a random case (seeds 0, min and max first); a failure prints the falsifying
 * seed and QuickTheories' own seed, which {@code qt().withFixedSeed(...)} or {@code -DQT_SEED=...} replays.
 */
class CostFitProperties {

  private record Case(List<Member> members, List<String> units, Map<String, Integer> costs, Table table) {}

  private static Case randomCase(long seed, boolean unitCosts) {
    Random r = new Random(seed);
    List<Member> members = new ArrayList<>();
    int m = 1 + r.nextInt(8);
    for (int i = 0; i < m; i++) {
      int cap = r.nextInt(5) == 0 ? Member.UNLIMITED : r.nextInt(30);
      members.add(Member.of("m" + i, r.nextInt(6) == 0 ? 0 : 1 + r.nextInt(3), cap));
    }
    List<String> units = new ArrayList<>();
    Map<String, Integer> costs = new HashMap<>();
    int n = r.nextInt(80);
    for (int i = 0; i < n; i++) {
      String u = "t" + i;
      units.add(u);
      if (!unitCosts && r.nextInt(3) == 0) {
        costs.put(u, 1 + r.nextInt(6));
      }
    }
    Table table = Assigners.byName("balanced").assign(members, units, Table.EMPTY);
    return new Case(members, units, costs, table);
  }

  private static int cost(Map<String, Integer> costs, String u) {
    return costs.getOrDefault(u, 1);
  }

  @Test
  void everyUnitOnceNoMemberOverCapacityAndOverflowFitsNowhere() {
    qt().withExamples(400).forAll(longs().all()).checkAssert(this::everyUnitOnceNoMemberOverCapacityAndOverflowFitsNowhere);
  }

  private void everyUnitOnceNoMemberOverCapacityAndOverflowFitsNowhere(long seed) {
    Case c = randomCase(seed, false);
    Table t = CostFit.fit(c.table(), c.members(), c.costs());
    List<String> all = new ArrayList<>(t.unassigned());
    t.byMember().values().forEach(all::addAll);
    assertThat(all).containsExactlyInAnyOrderElementsOf(c.units());
    Map<String, Long> load = new HashMap<>();
    for (Member m : c.members()) {
      long used = t.unitsOf(m.id()).stream().mapToLong(u -> cost(c.costs(), u)).sum();
      assertThat(used).as("load of %s", m.id()).isLessThanOrEqualTo(m.capacity());
      if (m.affinity() == 0) {
        assertThat(t.unitsOf(m.id())).isEmpty();
      }
      load.put(m.id(), used);
    }
    for (String u : t.unassigned()) {
      for (Member m : c.members()) {
        if (m.affinity() > 0) {
          assertThat(load.get(m.id()) + cost(c.costs(), u)).as("unassigned %s would fit %s", u, m.id())
              .isGreaterThan(m.capacity());
        }
      }
    }
  }

  @Test
  void withUnitCostsAStrategysTableComesBackUnchanged() {
    qt().withExamples(200).forAll(longs().all()).checkAssert(this::withUnitCostsAStrategysTableComesBackUnchanged);
  }

  private void withUnitCostsAStrategysTableComesBackUnchanged(long seed) {
    Case c = randomCase(seed, true);
    assertThat(CostFit.fit(c.table(), c.members(), Map.of())).isSameAs(c.table());
  }

  @Test
  void unitsThatFitWhereTheyAreStay() {
    qt().withExamples(200).forAll(longs().all()).checkAssert(this::unitsThatFitWhereTheyAreStay);
  }

  private void unitsThatFitWhereTheyAreStay(long seed) {
    Case c = randomCase(seed, false);
    Table t = CostFit.fit(c.table(), c.members(), c.costs());
    for (Member m : c.members()) {
      if (m.affinity() == 0) {
        continue;
      }
      long used = 0;
      for (String u : c.table().unitsOf(m.id())) {
        if (used + cost(c.costs(), u) <= m.capacity()) {
          used += cost(c.costs(), u);
          assertThat(t.ownerOf(u)).as(u).contains(m.id());
        }
      }
    }
  }

  @Test
  void memberOrderDoesNotMatter() {
    qt().withExamples(200).forAll(longs().all(), integers().between(0, 1000)).checkAssert(this::memberOrderDoesNotMatter);
  }

  private void memberOrderDoesNotMatter(long seed, int shuffle) {
    Case c = randomCase(seed, false);
    List<Member> shuffled = new ArrayList<>(c.members());
    Collections.shuffle(shuffled, new Random(shuffle));
    assertThat(CostFit.fit(c.table(), shuffled, c.costs())).isEqualTo(CostFit.fit(c.table(), c.members(), c.costs()));
  }

  @Test
  void aBigTaskMovesToTheMemberWithRoomAndTheRestStay() {
    List<Member> members = List.of(Member.of("a", 1, 3), Member.of("b", 1, 5));
    Table in = Table.of(Map.of("a", List.of("x", "big"), "b", List.of("y")));
    Table out = CostFit.fit(in, members, Map.of("big", 3, "y", 2));
    assertThat(out.unitsOf("a")).containsExactly("x");
    assertThat(out.unitsOf("b")).containsExactly("y", "big");
    assertThat(CostFit.fit(in, List.of(Member.of("a", 1, 3), Member.of("b", 1, 4)), Map.of("big", 3, "y", 2))
        .unassigned()).as("no room anywhere: reported").containsExactly("big");
  }
}
