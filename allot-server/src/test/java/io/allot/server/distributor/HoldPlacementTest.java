package io.allot.server.distributor;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Assigners;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import io.allot.store.UnitHold;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Holds are honoured whatever the strategy: a held unit never goes to the member that declined it. */
class HoldPlacementTest {

  static UnitHold hold(String unit, String member) {
    return new UnitHold(unit, member, Long.MAX_VALUE);
  }

  @Test
  void aHeldUnitGoesToTheLeastLoadedOtherMemberTiesById() {
    Table t = Table.of(Map.of("a", List.of("u1"), "b", List.of("u2", "u3"), "c", List.of("u4")));
    List<Member> live = List.of(Member.of("a"), Member.of("b"), Member.of("c"));
    Table out = HoldPlacement.place(t, live, List.of(hold("x", "a")));
    assertThat(out.unitsOf("c")).containsExactly("u4", "x"); // a declined it; c and a tie at 1, b has 2
    out = HoldPlacement.place(t, live, List.of(hold("x", "b")));
    assertThat(out.unitsOf("a")).containsExactly("u1", "x"); // a and c tie: a by id
    // one after the other, in unit order, each placement counting
    t = Table.of(Map.of("a", List.of("u1"), "b", List.of("u2"), "c", List.of("u3", "u4")));
    out = HoldPlacement.place(t, live, List.of(hold("y", "c"), hold("x", "c")));
    assertThat(out.unitsOf("a")).containsExactly("u1", "x");
    assertThat(out.unitsOf("b")).containsExactly("u2", "y");
  }

  @Test
  void loadIsUnitsPerAffinityAndCapacityAndAffinityZeroAreRespected() {
    Table t = Table.of(Map.of("a", List.of("u1"), "b", List.of("u2", "u3"), "c", List.of(), "d", List.of()));
    // b carries 2 with affinity 4 (0.5 per affinity), a 1 with affinity 1; c is full (capacity 0 units left), d takes none
    List<Member> live = List.of(Member.of("a"), Member.of("b", 4), Member.of("c", 1, 0), Member.of("d", 0));
    Table out = HoldPlacement.place(t, live, List.of(hold("x", "a")));
    assertThat(out.unitsOf("b")).containsExactly("u2", "u3", "x");
    assertThat(out.unitsOf("c")).isEmpty();
    assertThat(out.unitsOf("d")).isEmpty();
  }

  @Test
  void aHeldUnitNobodyElseCanTakeIsUnassignedNeverGivenBack() {
    Table t = Table.of(Map.of("a", List.of("u1")));
    Table out = HoldPlacement.place(t, List.of(Member.of("a")), List.of(hold("x", "a")));
    assertThat(out.unitsOf("a")).containsExactly("u1");
    assertThat(out.unassigned()).containsExactly("x");
  }

  @Test
  void onlyHoldsOnListedUnitsByLiveMembersBind() {
    Map<String, UnitHold> holds = Map.of("x", hold("x", "a"), "y", hold("y", "gone"), "z", hold("z", "a"));
    assertThat(HoldPlacement.binding(holds, Set.of("x", "y"), List.of(Member.of("a"), Member.of("b"))))
        .containsOnlyKeys("x");
  }

  @Test
  void noHoldsLeaveTheStrategysTableAsItIs() {
    Table t = Table.of(Map.of("a", List.of("u1")));
    assertThat(HoldPlacement.place(t, List.of(Member.of("a")), List.of())).isSameAs(t);
  }

  /**
   * Every strategy's table, with the held units placed, on 400 random fleets (seeded: a failure names its seed):
   * covers every unit, never gives a held unit to its decliner, respects capacity, and does not depend on order.
   */
  @Test
  void heldUnitsNeverGoToTheirDeclinerAndThePlacementIsDeterministic() {
    for (long seed = 1; seed <= 400; seed++) {
      try {
        checkRandomFleet(seed);
      } catch (AssertionError e) {
        throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
      }
    }
  }

  private static void checkRandomFleet(long seed) {
    Random rnd = new Random(seed);
    int memberCount = 1 + rnd.nextInt(6);
    int unitCount = rnd.nextInt(31);
    int strategy = rnd.nextInt(4);
    List<Member> live = new ArrayList<>();
    for (int i = 0; i < memberCount; i++) {
      live.add(Member.of("m" + i, rnd.nextInt(3), rnd.nextBoolean() ? Member.UNLIMITED : rnd.nextInt(8)));
    }
    Set<String> units = new LinkedHashSet<>();
    for (int i = 0; i < unitCount; i++) {
      units.add("u" + i);
    }
    List<UnitHold> holds = new ArrayList<>();
    for (String u : units) {
      if (rnd.nextInt(3) == 0) {
        holds.add(hold(u, live.get(rnd.nextInt(memberCount)).id()));
      }
    }
    Assigner assigner = Assigners.byName(List.of("rendezvous", "rendezvous-unbounded", "balanced", "seed-ring").get(strategy));
    Set<String> free = new LinkedHashSet<>(units);
    holds.forEach(h -> free.remove(h.unit()));
    Table out = HoldPlacement.place(assigner.assign(live, free), live, holds);

    Set<String> seen = new HashSet<>(out.unassigned());
    out.byMember().values().forEach(seen::addAll);
    assertThat(seen).isEqualTo(units);
    for (UnitHold h : holds) {
      assertThat(out.ownerOf(h.unit())).isNotEqualTo(Optional.of(h.member()));
    }
    for (Member m : live) {
      assertThat(out.unitsOf(m.id()).size()).isLessThanOrEqualTo(m.capacity());
      if (m.affinity() == 0) {
        assertThat(out.unitsOf(m.id())).isEmpty();
      }
    }
    // the same inputs in another order: the same table
    List<Member> shuffledLive = new ArrayList<>(live);
    List<UnitHold> shuffledHolds = new ArrayList<>(holds);
    Collections.shuffle(shuffledLive, rnd);
    Collections.shuffle(shuffledHolds, rnd);
    assertThat(HoldPlacement.place(assigner.assign(live, free), shuffledLive, shuffledHolds)).isEqualTo(out);
  }
}
