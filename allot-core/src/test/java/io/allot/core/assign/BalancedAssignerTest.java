package io.allot.core.assign;

import static io.allot.core.assign.BalancedFixtures.checkInvariants;
import static io.allot.core.assign.BalancedFixtures.moved;
import static io.allot.core.assign.BalancedFixtures.optimum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Examples of the {@code balanced} strategy. */
class BalancedAssignerTest {
  private final BalancedAssigner balanced = new BalancedAssigner();

  static List<String> units(int n) {
    List<String> l = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      l.add("u" + i);
    }
    return l;
  }

  @Test
  void isRegisteredUnderItsName() {
    assertThat(balanced.name()).isEqualTo("balanced");
    assertThat(Assigners.byName("balanced")).isInstanceOf(BalancedAssigner.class);
  }

  @Test
  void splitsEvenlyAndByWeight() {
    List<Member> ms = List.of(Member.of("a"), Member.of("b"), Member.of("c"));
    Table t = balanced.assign(ms, units(10));
    assertThat(t.loads().values()).containsExactlyInAnyOrder(4, 3, 3);
    checkInvariants(t, ms, units(10));

    List<Member> weighted = List.of(Member.of("a", 1), Member.of("b", 2), Member.of("c", 3));
    assertThat(balanced.assign(weighted, units(12)).loads()).containsExactly(Map.entry("a", 2), Map.entry("b", 4), Map.entry("c", 6));
  }

  @Test
  void affinityZeroGetsNothingButIsListed() {
    List<Member> ms = List.of(Member.of("idle", 0), Member.of("busy"));
    Table t = balanced.assign(ms, units(5));
    assertThat(t.unitsOf("idle")).isEmpty();
    assertThat(t.members()).containsExactly("busy", "idle");
    assertThat(t.unitsOf("busy")).hasSize(5);
  }

  @Test
  void noUnitsAndNoMembers() {
    Table t = balanced.assign(List.of(Member.of("a"), Member.of("b")), List.of());
    assertThat(t.byMember()).containsOnlyKeys("a", "b");
    assertThat(t.assignedCount()).isZero();

    Table none = balanced.assign(List.of(), units(3));
    assertThat(none.members()).isEmpty();
    assertThat(none.unassigned()).containsExactly("u0", "u1", "u2");
  }

  @Test
  void capacityIsWaterFilled() {
    // shares 10/3 each, but "small" can take 1: the other two split the remaining 9 by weight
    List<Member> ms = List.of(Member.of("small", 1, 1), Member.of("x", 1), Member.of("y", 2));
    Table t = balanced.assign(ms, units(10));
    assertThat(t.unitsOf("small")).hasSize(1);
    assertThat(t.unitsOf("x")).hasSize(3);
    assertThat(t.unitsOf("y")).hasSize(6);
    // clamping one member can push another over its capacity in turn
    List<Member> chain = List.of(Member.of("a", 1, 2), Member.of("b", 1, 6), Member.of("c", 1));
    Table t2 = balanced.assign(chain, units(15));
    assertThat(t2.loads()).containsExactly(Map.entry("a", 2), Map.entry("b", 6), Map.entry("c", 7));
  }

  @Test
  void overflowIsUnassignedAndRunningUnitsKeepRunning() {
    List<Member> ms = List.of(Member.of("a", 1, 2), Member.of("b", 1, 3));
    Table before = balanced.assign(ms, units(5));
    assertThat(before.unassigned()).isEmpty();
    // five new units and one member fewer: b keeps its three, a's two running units are preferred
    // over the new ones, and everything else waits
    List<Member> after = List.of(Member.of("b", 1, 3), Member.of("c", 1, 2));
    List<String> more = units(10);
    Table t = balanced.assign(after, more, before);
    assertThat(t.unitsOf("b")).isEqualTo(before.unitsOf("b"));
    assertThat(t.unitsOf("c")).containsExactlyInAnyOrderElementsOf(before.unitsOf("a"));
    assertThat(t.unassigned()).containsExactly("u5", "u6", "u7", "u8", "u9");
    checkInvariants(t, after, more);
    assertThat(balanced.update(before, after, more, new Changes(Set.of("c"), Set.of("a"), Set.of(), Set.of("u5", "u6", "u7", "u8", "u9"), Set.of())))
        .isEqualTo(t);
  }

  @Test
  void keepsUnitsInTableOrderAndAppendsNewOnes() {
    Map<String, List<String>> prev = new LinkedHashMap<>();
    prev.put("a", List.of("u9", "u1", "u5"));
    prev.put("b", List.of("u2"));
    Table previous = Table.of(prev);
    List<Member> ms = List.of(Member.of("a"), Member.of("b"));
    Table t = balanced.assign(ms, List.of("u1", "u2", "u5", "u9", "new"), previous);
    assertThat(t.unitsOf("a")).containsExactly("u9", "u1", "u5");
    assertThat(t.unitsOf("b")).containsExactly("u2", "new");
  }

  @Test
  void aMemberOverQuotaGivesUpItsMostRecentUnits() {
    Map<String, List<String>> prev = new LinkedHashMap<>();
    prev.put("a", List.of("u0", "u1", "u2", "u3", "u4", "u5"));
    Table previous = Table.of(prev);
    List<Member> ms = List.of(Member.of("a"), Member.of("b"));
    Table t = balanced.assign(ms, units(6), previous);
    assertThat(t.unitsOf("a")).containsExactly("u0", "u1", "u2");
    assertThat(t.unitsOf("b")).containsExactlyInAnyOrder("u3", "u4", "u5");
  }

  @Test
  void theRoundedUpUnitGoesToWhoAlreadyHoldsIt() {
    // 7 units over 2 members: whoever already has 4 keeps 4, so nothing moves
    Map<String, List<String>> prev = new LinkedHashMap<>();
    prev.put("a", List.of("u0", "u1", "u2"));
    prev.put("b", List.of("u3", "u4", "u5", "u6"));
    Table previous = Table.of(prev);
    Table t = balanced.assign(List.of(Member.of("a"), Member.of("b")), units(7), previous);
    assertThat(t).isEqualTo(previous);
  }

  @Test
  void oddNamesWork() {
    List<Member> ms =
        List.of(Member.of("😀"), Member.of("ü"), Member.of("a,b"), Member.of("m".repeat(5000)), Member.of(" "), Member.of("日本"));
    List<String> us = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      us.add(BalancedFixtures.decorate("unit", i));
    }
    us.add("🚀,🚀");
    us.add("z".repeat(100_000));
    Table t = balanced.assign(ms, us);
    checkInvariants(t, ms, us);
    assertThat(t.members()).first().isEqualTo(" ");
    assertThat(t.members()).last().isEqualTo("😀"); // byte order: a surrogate pair sorts last
    List<Member> fewer = ms.subList(1, ms.size());
    assertThat(balanced.update(t, fewer, us, Changes.memberRemoved("😀"))).isEqualTo(balanced.assign(fewer, us, t));
  }

  @Test
  void badInputIsRejectedNamingIt() {
    List<Member> ms = List.of(Member.of("a"));
    assertThatThrownBy(() -> balanced.assign(ms, List.of("x", "")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unit name is empty");
    assertThatThrownBy(() -> balanced.assign(ms, Arrays.asList("x", null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unit name is null");
    assertThatThrownBy(() -> balanced.assign(ms, List.of("x", "y,z", "y,z")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unit 'y,z' is listed twice");
    assertThatThrownBy(() -> balanced.assign(List.of(Member.of("a"), Member.of("a", 2)), List.of("x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("member 'a' is listed twice");
    assertThatThrownBy(() -> balanced.assign(ms, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("units is null");
    Table t = balanced.assign(ms, List.of("x"));
    Set<String> added = new HashSet<>(List.of(""));
    assertThatThrownBy(() -> balanced.update(t, ms, List.of("x", ""), Changes.units(added, Set.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unit name is empty");
  }

  /** A moderately large run of the scenarios the strategy is built for. */
  @Test
  void leaveJoinAndChurnAtScale() {
    int n = 50_000;
    List<Member> ms = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      ms.add(Member.of("member-" + i));
    }
    List<String> us = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      us.add("job-" + i);
    }
    Table t0 = balanced.assign(ms, us);
    assertThat(t0.loads().values()).containsOnly(n / 100);

    List<Member> left = new ArrayList<>(ms);
    left.remove(42);
    Table leave = balanced.update(t0, left, us, Changes.memberRemoved("member-42"));
    assertThat(leave).isEqualTo(balanced.assign(left, us, t0));
    assertThat(moved(t0, leave, us)).isEqualTo(optimum(t0, leave)).isEqualTo(n / 100);
    checkInvariants(leave, left, us);

    List<Member> joined = new ArrayList<>(ms);
    joined.add(Member.of("member-new"));
    Table join = balanced.update(t0, joined, us, Changes.memberAdded("member-new"));
    assertThat(join).isEqualTo(balanced.assign(joined, us, t0));
    assertThat(moved(t0, join, us)).isEqualTo(optimum(t0, join)).isEqualTo(join.unitsOf("member-new").size());

    Set<String> added = new HashSet<>();
    Set<String> removed = new HashSet<>();
    for (int i = 0; i < n / 100; i++) {
      added.add("new-" + i);
      removed.add("job-" + (i * 97));
    }
    List<String> churned = new ArrayList<>(us);
    churned.removeAll(removed);
    churned.addAll(added);
    Table churn = balanced.update(t0, ms, churned, Changes.units(added, removed));
    assertThat(churn).isEqualTo(balanced.assign(ms, churned, t0));
    assertThat(moved(t0, churn, churned)).isZero();
    checkInvariants(churn, ms, churned);
  }
}
