package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ScenarioTest {

  @Test
  void namesAreRealisticAndFixed() {
    assertThat(Scenario.unitName(123)).isEqualTo("unit-000123");
    assertThat(Scenario.unitName(1_000_000)).isEqualTo("unit-1000000");
    assertThat(Scenario.memberId(0)).isEqualTo("10.0.0.1:8080");
    assertThat(Scenario.memberId(249)).isEqualTo("10.0.0.250:8080");
    assertThat(Scenario.memberId(250)).isEqualTo("10.0.1.1:8080");
  }

  @Test
  void membersAreByteOrderedAndTheMiddleOneLeaves() {
    Scenario sc = Scenario.of(1_000, 10);
    List<String> ids = sc.members().stream().map(Member::id).toList();
    assertThat(ids).isSortedAccordingTo(Names.BYTE_ORDER).hasSize(10).doesNotHaveDuplicates();
    assertThat(sc.leaver()).isEqualTo(ids.get(5));
    assertThat(sc.membersAfterLeave()).hasSize(9).noneMatch(m -> m.id().equals(sc.leaver()));
    assertThat(sc.membersAfterJoin()).hasSize(11).anyMatch(m -> m.id().equals(Scenario.JOINER));
    assertThat(sc.leaveChanges().membersRemoved()).containsExactly(sc.leaver());
    assertThat(sc.joinChanges().membersAdded()).containsExactly(Scenario.JOINER);
  }

  @Test
  void churnReplacesOnePercentDeterministically() {
    Scenario a = Scenario.of(10_000, 3);
    Scenario b = Scenario.of(10_000, 3);
    assertThat(a.churnRemoved()).hasSize(100).isEqualTo(b.churnRemoved());
    assertThat(a.churnAdded()).hasSize(100).allMatch(u -> !a.units().contains(u));
    assertThat(a.unitsAfterChurn()).hasSize(10_000).doesNotHaveDuplicates();
    Set<String> after = new HashSet<>(a.unitsAfterChurn());
    assertThat(after).containsAll(a.churnAdded()).doesNotContainAnyElementsOf(a.churnRemoved());
    assertThat(a.churnSurvivors()).isEqualTo(9_900);
    // pseudo-random, not the first units
    assertThat(a.churnRemoved()).isNotEqualTo(Set.copyOf(a.units().subList(0, 100)));
    assertThat(Scenario.of(50, 3).churnRemoved()).hasSize(1);
  }

  @Test
  void addingAndRemovingUseTheChurnsSetsAlone() {
    Scenario a = Scenario.of(10_000, 3);
    assertThat(a.unitsAfterAdd()).hasSize(10_100).doesNotHaveDuplicates().containsAll(a.units()).containsAll(a.churnAdded());
    assertThat(a.unitsAfterRemove()).hasSize(9_900).doesNotContainAnyElementsOf(a.churnRemoved());
    assertThat(a.addChanges().unitsAdded()).isEqualTo(a.churnAdded());
    assertThat(a.addChanges().unitsRemoved()).isEmpty();
    assertThat(a.removeChanges().unitsRemoved()).isEqualTo(a.churnRemoved());
    assertThat(a.removeChanges().unitsAdded()).isEmpty();
  }
}
