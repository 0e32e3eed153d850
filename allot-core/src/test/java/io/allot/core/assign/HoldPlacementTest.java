package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Holds are honoured whatever the strategy: a held unit never goes to the member that declined it. */
class HoldPlacementTest {

  /** A hold as the store has it: a unit, the member that declined it (and, in the store, until when). */
  record Hold(String unit, String member) {}

  static Hold hold(String unit, String member) {
    return new Hold(unit, member);
  }

  /** Places {@code holds} given in this order (the map keeps it). */
  static Table place(Table table, List<Member> live, List<Hold> holds) {
    Map<String, Hold> byUnit = new LinkedHashMap<>();
    holds.forEach(h -> byUnit.put(h.unit(), h));
    return HoldPlacement.place(table, live, byUnit, Hold::member);
  }

  @Test
  void aHeldUnitGoesToTheLeastLoadedOtherMemberTiesById() {
    Table t = Table.of(Map.of("a", List.of("u1"), "b", List.of("u2", "u3"), "c", List.of("u4")));
    List<Member> live = List.of(Member.of("a"), Member.of("b"), Member.of("c"));
    Table out = place(t, live, List.of(hold("x", "a")));
    assertThat(out.unitsOf("c")).containsExactly("u4", "x"); // a declined it; c and a tie at 1, b has 2
    out = place(t, live, List.of(hold("x", "b")));
    assertThat(out.unitsOf("a")).containsExactly("u1", "x"); // a and c tie: a by id
    // one after the other, in unit order, each placement counting
    t = Table.of(Map.of("a", List.of("u1"), "b", List.of("u2"), "c", List.of("u3", "u4")));
    out = place(t, live, List.of(hold("y", "c"), hold("x", "c")));
    assertThat(out.unitsOf("a")).containsExactly("u1", "x");
    assertThat(out.unitsOf("b")).containsExactly("u2", "y");
  }

  @Test
  void loadIsUnitsPerAffinityAndCapacityAndAffinityZeroAreRespected() {
    Table t = Table.of(Map.of("a", List.of("u1"), "b", List.of("u2", "u3"), "c", List.of(), "d", List.of()));
    // b carries 2 with affinity 4 (0.5 per affinity), a 1 with affinity 1; c is full (capacity 0 units left), d takes none
    List<Member> live = List.of(Member.of("a"), Member.of("b", 4), Member.of("c", 1, 0), Member.of("d", 0));
    Table out = place(t, live, List.of(hold("x", "a")));
    assertThat(out.unitsOf("b")).containsExactly("u2", "u3", "x");
    assertThat(out.unitsOf("c")).isEmpty();
    assertThat(out.unitsOf("d")).isEmpty();
  }

  @Test
  void aHeldUnitNobodyElseCanTakeIsUnassignedNeverGivenBack() {
    Table t = Table.of(Map.of("a", List.of("u1")));
    Table out = place(t, List.of(Member.of("a")), List.of(hold("x", "a")));
    assertThat(out.unitsOf("a")).containsExactly("u1");
    assertThat(out.unassigned()).containsExactly("x");
  }

  @Test
  void onlyHoldsOnListedUnitsByLiveMembersBind() {
    Map<String, Hold> holds = Map.of("x", hold("x", "a"), "y", hold("y", "gone"), "z", hold("z", "a"));
    assertThat(HoldPlacement.binding(holds, Hold::member, Set.of("x", "y"), List.of(Member.of("a"), Member.of("b"))))
        .containsOnlyKeys("x");
  }

  @Test
  void noHoldsLeaveTheStrategysTableAsItIs() {
    Table t = Table.of(Map.of("a", List.of("u1")));
    assertThat(place(t, List.of(Member.of("a")), List.of())).isSameAs(t);
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
    List<Hold> holds = new ArrayList<>();
    for (String u : units) {
      if (rnd.nextInt(3) == 0) {
        holds.add(hold(u, live.get(rnd.nextInt(memberCount)).id()));
      }
    }
    Assigner assigner = Assigners.byName(List.of("rendezvous", "rendezvous-unbounded", "balanced", "seed-ring").get(strategy));
    Set<String> free = new LinkedHashSet<>(units);
    holds.forEach(h -> free.remove(h.unit()));
    Table out = place(assigner.assign(live, free), live, holds);

    Set<String> seen = new HashSet<>(out.unassigned());
    out.byMember().values().forEach(seen::addAll);
    assertThat(seen).isEqualTo(units);
    for (Hold h : holds) {
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
    List<Hold> shuffledHolds = new ArrayList<>(holds);
    Collections.shuffle(shuffledLive, rnd);
    Collections.shuffle(shuffledHolds, rnd);
    assertThat(place(assigner.assign(live, free), shuffledLive, shuffledHolds)).isEqualTo(out);
  }
}
